import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { D1PreparedQuery, SQLiteD1Session } from 'drizzle-orm/d1'
import { DRIZZLE_CHECKED } from '../../src/storage/drizzle-adapter'

// The adapter (src/storage/drizzle-adapter.ts) relies on Drizzle's private shape. An upgrade must
// walk its checklist: this fails loudly until it has, whatever the other tests say.

const drizzlePackage = JSON.parse(
  readFileSync(new URL('../../node_modules/drizzle-orm/package.json', import.meta.url), 'utf8'),
) as { version: string }

describe('the Drizzle adapter', () => {
  it('was checked against the Drizzle version installed', () => {
    expect(
      drizzlePackage.version,
      `drizzle-orm is ${drizzlePackage.version}: walk the upgrade checklist in src/storage/drizzle-adapter.ts, then set DRIZZLE_CHECKED`,
    ).toBe(DRIZZLE_CHECKED)
  })

  it('finds the private shape it binds statements with', () => {
    const batch = SQLiteD1Session.prototype.batch.toString()
    for (const step of ['_prepare()', 'getQuery()', '.stmt.bind(', 'mapResult(']) {
      expect(batch, `SQLiteD1Session.batch no longer uses ${step}`).toContain(step)
    }
    const query = D1PreparedQuery.prototype
    for (const method of ['all', 'get', 'mapResult']) {
      expect(typeof (query as unknown as Record<string, unknown>)[method], method).toBe('function')
    }
    const all = query.all.toString()
    expect(all, 'D1PreparedQuery.all no longer reads this.query and this.stmt').toMatch(/query/)
    expect(all).toMatch(/stmt/)
  })
})
