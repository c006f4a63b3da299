import { env } from 'cloudflare:test'
import { interceptD1 } from '../../src/storage/metered-d1'

// D1 and R2 bindings that fail on demand: the n-th operation (a D1 round trip, or an R2 call)
// throws, either before it reaches the store (it never happened) or after (it happened, but the
// answer was lost, as when a connection drops). With no fault they only count.

export type Fault = { at: number; when: 'before' | 'after' }

const R2_METHODS = new Set(['put', 'get', 'head', 'delete', 'list'])

export function faultyBindings(fault: Fault | null) {
  const state = { operations: 0, tripped: null as string | null, log: [] as string[] }
  async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
    const n = ++state.operations
    state.log.push(name)
    const failing = fault?.at === n
    if (failing && fault.when === 'before') {
      state.tripped = `${name} (before)`
      throw new Error(`injected fault before ${name}`)
    }
    const result = await run()
    if (failing && fault.when === 'after') {
      state.tripped = `${name} (after)`
      throw new Error(`injected fault after ${name}`)
    }
    return result
  }
  const DB = interceptD1(env.DB, (trip, run) => step(`D1 ${trip.method}`, run))
  const BUCKET = new Proxy(env.BUCKET, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target)
      if (typeof prop === 'string' && R2_METHODS.has(prop)) {
        return (...args: unknown[]) => step(`R2 ${prop}`, () => value.apply(target, args))
      }
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { bindings: { DB, BUCKET }, state }
}

/** Every fault worth injecting into an operation that made `count` calls when nothing failed. */
export function faultsFor(count: number): Fault[] {
  return Array.from({ length: count }, (_, i) => [
    { at: i + 1, when: 'before' as const },
    { at: i + 1, when: 'after' as const },
  ]).flat()
}
