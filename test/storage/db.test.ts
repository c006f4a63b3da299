import { env } from 'cloudflare:test'
import { eq } from 'drizzle-orm'
import { expect, it, vi } from 'vitest'
import { errorText, logError } from '../../src/lib/log'
import { database, prepared, type Placeholders } from '../../src/storage/db'
import { meteredD1 } from '../../src/storage/metered-d1'
import { sweepState } from '../../src/storage/schema'

it('the meter sees what a query outside a batch read, and hands back the same rows', async () => {
  await env.DB.prepare(
    "INSERT OR REPLACE INTO sweep_state (key, value) VALUES ('probe', 'x')",
  ).run()
  const query = (db: ReturnType<typeof database>) =>
    db
      .select({ key: sweepState.key, value: sweepState.value })
      .from(sweepState)
      .where(eq(sweepState.key, 'probe'))
  const { db, meter } = meteredD1(env.DB)
  const metered = await query(database(db))
  expect(metered).toEqual(await query(database(env.DB)))
  expect(metered).toEqual([{ key: 'probe', value: 'x' }])
  expect(await query(database(db)).get()).toEqual({ key: 'probe', value: 'x' })
  expect(meter.roundTrips).toBe(2)
  expect(meter.rowsRead).toBeGreaterThanOrEqual(2)
})

it("a failed statement's log line tells D1's own error, without the SQL or its bound values", async () => {
  const db = database(env.DB)
  const secret = 'bound-value-that-must-not-be-logged'
  await db.insert(sweepState).values({ key: secret, value: 'a' })
  const failure = await db
    .insert(sweepState)
    .values({ key: secret, value: 'b' })
    .then(() => null)
    .catch((err: unknown) => err)
  expect(failure).toBeInstanceOf(Error)
  const lines: string[] = []
  const spy = vi.spyOn(console, 'error').mockImplementation((line) => void lines.push(line))
  try {
    logError({ request_id: 'r1' }, failure)
  } finally {
    spy.mockRestore()
  }
  expect(lines).toHaveLength(1)
  const line = JSON.parse(lines[0])
  expect(line).toMatchObject({ level: 'error', request_id: 'r1' })
  expect(line.message).toContain('UNIQUE constraint failed')
  expect(lines[0]).not.toContain(secret)
  expect(lines[0].toLowerCase()).not.toContain('insert into')
  expect(errorText(failure)).not.toContain(secret)
})

it('a prepared statement is built once and bound to each call’s values and handle, alone or batched', async () => {
  await env.DB.batch([
    env.DB.prepare("INSERT OR REPLACE INTO sweep_state (key, value) VALUES ('p1', 'one')"),
    env.DB.prepare("INSERT OR REPLACE INTO sweep_state (key, value) VALUES ('p2', 'two')"),
  ])
  let builds = 0
  const byKey = prepared((db, p: Placeholders<{ key: string }>) => {
    builds++
    return db
      .select({ key: sweepState.key, value: sweepState.value })
      .from(sweepState)
      .where(eq(sweepState.key, p('key')))
  })
  const db = database(env.DB)
  expect(await byKey(db, { key: 'p1' }).get()).toEqual({ key: 'p1', value: 'one' })
  expect(await byKey(db, { key: 'p2' }).all()).toEqual([{ key: 'p2', value: 'two' }])
  expect(await byKey(db, { key: 'none' }).get()).toBeUndefined()
  const [first, second, plain] = await db.batch([
    byKey(db, { key: 'p2' }),
    byKey(db, { key: 'p1' }),
    db.select({ key: sweepState.key }).from(sweepState).where(eq(sweepState.key, 'p1')),
  ])
  expect(first).toEqual([{ key: 'p2', value: 'two' }])
  expect(second).toEqual([{ key: 'p1', value: 'one' }])
  expect(plain).toEqual([{ key: 'p1' }])
  expect(builds).toBe(1)
  // Another handle (a metered one, a request's session) runs it on its own client, unbuilt again.
  const metered = meteredD1(env.DB)
  expect(await byKey(database(metered.db), { key: 'p1' }).get()).toEqual({
    key: 'p1',
    value: 'one',
  })
  expect(metered.meter.roundTrips).toBe(1)
  const session = env.DB.withSession('first-unconstrained')
  expect(await byKey(database(session), { key: 'p2' }).get()).toEqual({ key: 'p2', value: 'two' })
  expect(session.getBookmark()).not.toBeNull()
  expect(builds).toBe(1)
})
