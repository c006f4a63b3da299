import { afterEach, describe, expect, it } from 'vitest'
import { ago, clockTime, relative } from '../../src/lib/time'

// Moments as people read them (src/lib/time.ts), the clock held still. Node reads TZ again each
// time it is set, as a person's machine would have it.

const zone = process.env.TZ
afterEach(() => {
  if (zone === undefined) delete process.env.TZ
  else process.env.TZ = zone
})

describe('clockTime', () => {
  it('is the local wall clock, with the day unless it is today', () => {
    process.env.TZ = 'Asia/Kolkata'
    // 10:00 in Kolkata on 23 Nov 2026.
    const now = Date.parse('2026-11-23T04:30:00Z')
    expect(clockTime('2026-11-23T08:32:00Z', now)).toBe('14:02')
    expect(clockTime('2026-11-24T08:32:00Z', now)).toBe('14:02 tomorrow')
    expect(clockTime('2026-11-22T19:00:00Z', now)).toBe('00:30')
    expect(clockTime('2026-11-22T18:00:00Z', now)).toBe('23:30 yesterday')
    expect(clockTime('2026-11-30T08:32:00Z', now)).toBe('14:02 on 30 Nov')
    expect(clockTime('2027-01-02T08:32:00Z', now)).toBe('14:02 on 2 Jan 2027')
    // The same moments on other clocks: in New York it is still 22 Nov.
    process.env.TZ = 'America/New_York'
    expect(clockTime('2026-11-24T08:32:00Z', now)).toBe('03:32 on 24 Nov')
    process.env.TZ = 'UTC'
    expect(clockTime('2026-11-24T08:32:00Z', now)).toBe('08:32 tomorrow')
  })

  it('counts calendar days, not spans of 24 hours, across a change of the clocks', () => {
    process.env.TZ = 'Europe/Berlin'
    // Clocks go forward on 29 Mar 2026: noon to noon the next day is 23 hours.
    const now = Date.parse('2026-03-28T11:00:00Z')
    expect(clockTime('2026-03-29T10:00:00Z', now)).toBe('12:00 tomorrow')
    // Twenty minutes before midnight, a moment thirty minutes on is tomorrow.
    const late = Date.parse('2026-03-27T22:40:00Z')
    expect(clockTime('2026-03-27T23:10:00Z', late)).toBe('00:10 tomorrow')
  })
})

describe('relative and ago', () => {
  const now = Date.parse('2026-11-23T12:00:00Z')
  it('say how far a moment is from now', () => {
    expect(relative('2026-11-24T12:00:00Z', now)).toBe('in 24 h')
    expect(relative('2026-11-23T12:05:00Z', now)).toBe('in 5 min')
    expect(relative('2026-11-30T12:00:00Z', now)).toBe('in 7 days')
    expect(relative('2026-11-23T11:00:00Z', now)).toBe('expired')
    expect(ago('2026-11-23T11:59:50Z', now)).toBe('just now')
    expect(ago('2026-11-23T09:00:00Z', now)).toBe('3 h ago')
    expect(ago('2026-11-11T12:00:00Z', now)).toBe('12 days ago')
  })
})
