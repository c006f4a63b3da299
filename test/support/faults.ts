import { env } from 'cloudflare:test'
import { interceptD1 } from '../../src/storage/metered-d1'

// D1 and R2 bindings that fail or pause on demand: the n-th operation (a D1 round trip, or an R2 call)
// throws, either before it reaches the store (it never happened) or after (it happened, but the
// answer was lost, as when a connection drops). With no fault they only count.

export type Fault = { at: number; when: 'before' | 'after' }

const R2_METHODS = new Set(['put', 'get', 'head', 'delete', 'list'])

export function faultyBindings(fault: Fault | null) {
  const state = { operations: 0, tripped: null as string | null, log: [] as string[] }
  const bindings = steppedBindings(async (name, run) => {
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
  })
  return { bindings, state }
}

/**
 * Bindings that stop after their `at`-th operation until `resume()`: another actor (the sweep, a
 * second request) can then run to completion at exactly that point. `paused` settles when the
 * pause is reached; a request with fewer operations never pauses.
 */
export function pausingBindings(at: number) {
  let resume!: () => void
  let reached!: (step: string) => void
  const gate = new Promise<void>((resolve) => (resume = resolve))
  const paused = new Promise<string>((resolve) => (reached = resolve))
  let operations = 0
  const bindings = steppedBindings(async (name, run) => {
    const result = await run()
    if (++operations === at) {
      reached(name)
      await gate
    }
    return result
  })
  return { bindings, paused, resume, count: () => operations }
}

type Step = <T>(name: string, run: () => Promise<T>) => Promise<T>

/** The test's D1 and R2, with every D1 round trip and R2 call passed through `step`. */
function steppedBindings(step: Step) {
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
  return { DB, BUCKET }
}

/** Every fault worth injecting into an operation that made `count` calls when nothing failed. */
export function faultsFor(count: number): Fault[] {
  return Array.from({ length: count }, (_, i) => [
    { at: i + 1, when: 'before' as const },
    { at: i + 1, when: 'after' as const },
  ]).flat()
}
