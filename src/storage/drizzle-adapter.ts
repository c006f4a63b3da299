import { fillPlaceholders } from 'drizzle-orm'

// The one place that knows Drizzle's internals. Statements built once (storage/db.ts `prepared`)
// must run in `db.batch`, which takes no placeholder values: a statement bound to a call's values
// is made here from the prepared query's private shape. Everything else in the project uses
// Drizzle's public builder only.
//
// Upgrade checklist (test/node/drizzle-adapter.test.ts fails on any Drizzle version other than
// DRIZZLE_CHECKED, and on a change of any of these):
// 1. `SQLiteD1Session.batch` (drizzle-orm/d1/session.js) still calls `_prepare()` on each item, then
//    `getQuery()` for `{ sql, params }`, then binds `stmt` with those params, and maps the result
//    with `mapResult`. The bound statement below overrides `query` and `stmt` only.
// 2. `D1PreparedQuery#getQuery()` still answers `this.query`, and `all()`/`get()` still run
//    `this.stmt` with `this.query.params` (the bound values filled in here).
// 3. `fillPlaceholders(params, values)` is still exported by drizzle-orm.
// 4. An error of a statement run outside a batch is still wrapped with its SQL in the message
//    (DrizzleQueryError): lib/log.ts tells its cause instead.
// Then set DRIZZLE_CHECKED to the new version.

export const DRIZZLE_CHECKED = '0.45.4'

/** What a prepared query of Drizzle's exposes, and what its batch asks of it. */
export type PreparedQuery = {
  getQuery(): { sql: string; params: unknown[] }
  all(): Promise<unknown>
  get(): Promise<unknown>
}

/** A D1 binding or session: what a bound statement is prepared on. */
type Client = { prepare(sql: string): unknown }

/**
 * The prepared `query` bound to `values` on `client`: an object whose prototype is the prepared
 * query, so every other field and method is Drizzle's; as a batch item, `_prepare()` answers it.
 */
export function bindPrepared(
  query: PreparedQuery,
  client: Client,
  values: Record<string, unknown>,
): { _prepare(): PreparedQuery; all(): Promise<unknown>; get(): Promise<unknown> } {
  const { sql, params } = query.getQuery()
  const bound: PreparedQuery = Object.create(query, {
    query: { value: { sql, params: fillPlaceholders(params, values) } },
    stmt: { value: client.prepare(sql) },
  })
  return { _prepare: () => bound, all: () => bound.all(), get: () => bound.get() }
}
