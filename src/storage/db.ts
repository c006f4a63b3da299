import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1'
import { inArray, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { RunnableQuery } from 'drizzle-orm/runnable-query'
import { bindPrepared, type PreparedQuery } from './drizzle-adapter'

// Domain code queries through Drizzle's core query builder only: no relational `db.query` API, so
// no schema is passed and its code stays out of the Worker bundle.
export type Database = DrizzleD1Database

/** What Drizzle runs statements on: the binding itself, or a session of it (read replicas). */
export type D1Client = D1Database | D1DatabaseSession

// A binding lives as long as its isolate: its handle is built once, not on every request. A
// session lives for one request, and so does its handle.
const handles = new WeakMap<D1Client, Database>()
const clients = new WeakMap<Database, D1Client>()

export function database(d1: D1Client): Database {
  let db = handles.get(d1)
  if (!db) {
    // Drizzle asks of its client only prepare() and batch(), which a session has.
    db = drizzle(d1 as D1Database)
    handles.set(d1, db)
    clients.set(db, d1)
  }
  return db
}

/**
 * Read routes run in a D1 session, so that with read replication enabled a replica may answer
 * them, while `bookmark` (the last one this client was given) makes the session start no earlier
 * than the client's own last write. Anything that is not a bookmark D1 gave (8-8-8-32 hex digits)
 * is ignored: the session then starts at any replica.
 */
export function d1Session(d1: D1Database, bookmark: string | undefined): D1DatabaseSession {
  return d1.withSession(bookmark && BOOKMARK.test(bookmark) ? bookmark : 'first-unconstrained')
}

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/

/**
 * A bound value (or a prepared statement's placeholder) selected into `column` by INSERT ... SELECT:
 * the builder selects only columns and SQL, and a selected SQL must be named.
 */
export const value = <C extends AnyColumn>(column: C, v: Bindable<ColumnValue<C>>) =>
  sql<ColumnValue<C>>`${v}`.as(column.name)

type ColumnValue<C extends AnyColumn> = C['_']['notNull'] extends true
  ? C['_']['data']
  : C['_']['data'] | null

/** What EXISTS selects: only whether a row is there matters. */
export const one = { one: sql`1` }

/** A value, or the placeholder a prepared statement binds it to. */
export type Bindable<T> = T | Placeholder<string, T>

/** Names for the values a prepared statement takes, each typed by the value it stands for. */
export type Placeholders<V> = <K extends keyof V & string>(name: K) => Placeholder<K, V[K]>

type Preparable<R> = RunnableQuery<R, 'sqlite'> & { prepare(): PreparedQuery }

/** A prepared statement with its values: run alone by `all()` or `get()`, or in `db.batch`. */
export type Bound<R> = RunnableQuery<R, 'sqlite'> & {
  all(): Promise<R>
  get(): Promise<R extends (infer Row)[] ? Row | undefined : never>
}

/**
 * A statement built once, with placeholders where its values go, and bound to values per call
 * (drizzle-adapter.ts), alone or in `db.batch`, on the handle's own client (the binding, or the
 * request's session). Turning a builder into SQL costs Drizzle more than the rest of a hot read's
 * own work (BENCHMARKS.md), so the statements every request runs are built once per isolate.
 */
export function prepared<V extends Record<string, unknown>, R>(
  build: (db: Database, p: Placeholders<V>) => Preparable<R>,
): (db: Database, values: V) => Bound<R> {
  let query: PreparedQuery | undefined
  const placeholder: Placeholders<V> = (name) => sql.placeholder(name)
  return (db, values) => {
    query ??= build(db, placeholder).prepare()
    const client = clients.get(db)
    if (!client) throw new Error('prepared statements run on handles made by database()')
    // `_` is a declared type, never a value, in Drizzle's queries too: only the type needs it.
    return bindPrepared(query, client, values) as unknown as Bound<R>
  }
}

/**
 * Deletes up to `limit` rows of `table` that `where` selects (oldest first by `order` when given),
 * naming them by their key `key`: the sweep's way with what it keeps only for a while. Answers
 * how many went.
 */
export async function deleteSome(
  db: Database,
  table: SQLiteTable,
  key: SQLiteColumn,
  where: SQL | undefined,
  limit: number,
  order?: SQLiteColumn,
): Promise<number> {
  const chosen = db.select({ key }).from(table).where(where).limit(limit)
  const some = order ? chosen.orderBy(order) : chosen
  const deleted = await db.delete(table).where(inArray(key, some)).returning({ key })
  return deleted.length
}
