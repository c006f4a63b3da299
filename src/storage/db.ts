import { D1PreparedQuery, drizzle, type DrizzleD1Database } from 'drizzle-orm/d1'
import { sql, type AnyColumn } from 'drizzle-orm'
import { DrizzleQueryError } from 'drizzle-orm/errors'

// Domain code queries through Drizzle's core query builder only: no relational `db.query` API, so
// no schema is passed and its code stays out of the Worker bundle.
export type Database = DrizzleD1Database

// A binding lives as long as its isolate: its handle is built once, not on every request.
const handles = new WeakMap<D1Database, Database>()

// Outside a batch, Drizzle wraps a failed statement's error in one whose message holds the SQL and
// its bound values (hashes of passwords, sessions and keys among them), and error handlers log
// messages. A statement's error leaves as D1 threw it, as a batch's does.
const prepared = D1PreparedQuery.prototype as unknown as Record<'queryWithCache', Run>
type Run = (this: unknown, ...args: unknown[]) => Promise<unknown>
const queryWithCache = prepared.queryWithCache
prepared.queryWithCache = async function (...args) {
  try {
    return await queryWithCache.apply(this, args)
  } catch (err) {
    throw err instanceof DrizzleQueryError ? err.cause : err
  }
}

export function database(d1: D1Database): Database {
  let db = handles.get(d1)
  if (!db) handles.set(d1, (db = drizzle(d1)))
  return db
}

/**
 * A bound value selected into `column` by INSERT ... SELECT: the builder selects only columns and
 * SQL, and a selected SQL must be named.
 */
export const value = <C extends AnyColumn>(
  column: C,
  v: C['_']['notNull'] extends true ? C['_']['data'] : C['_']['data'] | null,
) => sql<typeof v>`${v}`.as(column.name)

/** What EXISTS selects: only whether a row is there matters. */
export const one = { one: sql`1` }
