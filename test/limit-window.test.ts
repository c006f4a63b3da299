import { describe, expect, it, vi } from 'vitest'
import { clientNetwork } from '../src/lib/addresses'
import { freshAddress, withinOneWindow } from './support/limit-window'

// The helper the rate-limit tests lean on: it may run a burst again only when the limiter's
// minute turned during it, so that a limit that stopped working still fails those tests.

const MINUTE = 60_000

/**
 * A clock of the test's own (the runtime's, mocked, would be every file's on this runtime): `now`
 * reads it, and each call to `tick` is a request that took `ms`.
 */
function clockAt(start: number) {
  let time = start
  return { now: () => time, tick: (ms: number) => (time += ms) }
}

describe('withinOneWindow', () => {
  it('runs a burst within one minute once, and returns what it returned', async () => {
    const { now, tick } = clockAt(100 * MINUTE + 1_000)
    const burst = vi.fn(async () => tick(500) && 'done')
    expect(await withinOneWindow(burst, now)).toBe('done')
    expect(burst).toHaveBeenCalledTimes(1)
  })

  it('fails as a burst within one minute fails, without running it again', async () => {
    const { now, tick } = clockAt(100 * MINUTE + 1_000)
    const burst = vi.fn(async () => {
      tick(500)
      throw new Error('expected 429, got 200')
    })
    await expect(withinOneWindow(burst, now)).rejects.toThrow('expected 429, got 200')
    expect(burst).toHaveBeenCalledTimes(1)
  })

  it('runs again a burst that straddled the minute, failed or not, with a new address', async () => {
    const { now, tick } = clockAt(101 * MINUTE - 200)
    const addresses: string[] = []
    const burst = vi.fn(async (ip: string) => {
      addresses.push(ip)
      tick(500)
      if (addresses.length === 1) throw new Error('a 200 where the sixth was refused')
      return addresses.length
    })
    expect(await withinOneWindow(burst, now)).toBe(2)
    expect(new Set(addresses).size).toBe(2)

    const passing = vi.fn(async () => tick(MINUTE))
    await withinOneWindow(passing, now)
    expect(passing).toHaveBeenCalledTimes(3)
  })

  it('gives up after the third run, failing as that one failed', async () => {
    const { now, tick } = clockAt(100 * MINUTE)
    let run = 0
    const burst = async () => {
      tick(MINUTE)
      throw new Error(`run ${++run}`)
    }
    await expect(withinOneWindow(burst, now)).rejects.toThrow('run 3')
  })
})

describe('freshAddress', () => {
  it('is an IPv6 address of the documentation range, in a /64 of its own each time', () => {
    const addresses = Array.from({ length: 100 }, freshAddress)
    for (const address of addresses) {
      expect(address).toMatch(/^2001:db8:[0-9a-f]{1,4}:[0-9a-f]{1,4}::1$/)
    }
    expect(new Set(addresses.map(clientNetwork)).size).toBe(100)
  })
})
