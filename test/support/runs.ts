import { env } from 'cloudflare:test'

/** The share of its cases a generated or exhaustive test runs: PROPERTY_SCALE, else all. */
function scale(): number {
  const scale = env.PROPERTY_SCALE === '' ? 1 : Number(env.PROPERTY_SCALE)
  if (!(scale > 0)) {
    throw new Error(`PROPERTY_SCALE must be a number above 0, got '${env.PROPERTY_SCALE}'`)
  }
  return scale
}

/**
 * How many cases a generated test runs: `full`, unless PROPERTY_SCALE (a number above 0) asks for
 * a share of them, as `npm run test:fast` does; never fewer than one.
 */
export function runs(full: number): number {
  return Math.max(1, Math.round(full * scale()))
}

/**
 * The cases an exhaustive walk (every step of an operation made to fail, say) tries: every
 * `step`-th from `first`, a number below `step`. Both are 1 unless PROPERTY_SCALE asks for a share;
 * then `first` is drawn at random, so that runs in turn cover every case.
 */
export function stride(): { first: number; step: number } {
  const step = Math.max(1, Math.round(1 / scale()))
  return { first: Math.floor(Math.random() * step), step }
}

/** `cases` as an exhaustive walk tries them (`stride`): all, or an evenly spaced share. */
export function sampled<T>(cases: T[]): T[] {
  const { first, step } = stride()
  return cases.filter((_, i) => i % step === first % Math.min(step, cases.length))
}
