import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1'
import { sql, type AnyColumn } from 'drizzle-orm'

// Domain code queries through Drizzle's core query builder only: no relational `db.query` API, so
// no schema is passed and its code stays out of the Worker bundle.
export type Database = DrizzleD1Database

// A binding lives as long as its isolate: its handle is built once, not on every request.
const handles = new WeakMap<D1Database, Database>()

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
