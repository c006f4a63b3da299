import { env } from 'cloudflare:test'
import { interceptD1 } from '../../src/storage/metered-d1'

// Whether a request wrote: the hostile-input check (hostile-check.ts) reads its fingerprint of the
// state only after a request that did. Tested in test/security/write-watch.test.ts, so that a
// runtime whose D1 stopped reporting its writes fails there rather than hiding them.

const KV_READS = new Set(['get', 'getWithMetadata', 'list'])

/** Whether every result of a D1 round trip reports that it changed nothing. */
function changedNothing(result: unknown): boolean {
  const results = Array.isArray(result) ? result : [result]
  return results.every((r) => {
    const meta = (r as { meta?: Partial<D1Meta> } | null)?.meta
    return meta?.changes === 0 && meta.rows_written === 0 && meta.changed_db === false
  })
}

/**
 * The D1 and KV bindings a request is given, watched for writes: a round trip that fails, or
 * whose results do not all report changing nothing, and any KV call but a read, counts as one.
 * The fingerprint of the state is read only after a request that wrote: it cannot have changed
 * otherwise, and reading it costs more than most refusals do.
 */
export function watchedBindings() {
  const seen = { trips: 0, wrote: false }
  const DB = interceptD1(
    env.DB,
    async (_trip, run) => {
      seen.trips++
      try {
        const result = await run()
        if (!changedNothing(result)) seen.wrote = true
        return result
      } catch (error) {
        seen.wrote = true
        throw error
      }
    },
    // Drizzle's reads outside a batch go through raw(), whose rows carry no report: all() instead.
    { rawFromAll: true },
  )
  const OAUTH_KV = new Proxy(env.OAUTH_KV, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (typeof prop !== 'string' || !KV_READS.has(prop)) seen.wrote = true
        return value.apply(target, args)
      }
    },
  })
  return { bindings: { DB, OAUTH_KV }, seen }
}
