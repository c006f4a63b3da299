import { env } from 'cloudflare:test'

/**
 * How many cases a generated test runs: `full`, unless PROPERTY_SCALE (a number above 0) asks for
 * a share of them, as `npm run test:fast` does; never fewer than one.
 */
export function runs(full: number): number {
  const scale = env.PROPERTY_SCALE === '' ? 1 : Number(env.PROPERTY_SCALE)
  if (!(scale > 0)) {
    throw new Error(`PROPERTY_SCALE must be a number above 0, got '${env.PROPERTY_SCALE}'`)
  }
  return Math.max(1, Math.round(full * scale))
}
