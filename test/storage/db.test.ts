import { env } from 'cloudflare:test'
import { eq } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { database } from '../../src/storage/db'
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

it("a failed statement throws D1's own error, without the SQL or its bound values", async () => {
  const db = database(env.DB)
  const secret = 'bound-value-that-must-not-be-logged'
  await db.insert(sweepState).values({ key: secret, value: 'a' })
  const failure = await db
    .insert(sweepState)
    .values({ key: secret, value: 'b' })
    .then(() => null)
    .catch((err: unknown) => err)
  expect(failure).toBeInstanceOf(Error)
  expect(String(failure)).toContain('UNIQUE constraint failed')
  expect(String(failure)).not.toContain(secret)
  expect(String(failure)).not.toContain('insert into')
})
