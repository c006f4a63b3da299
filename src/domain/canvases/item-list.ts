import { and, eq, sql } from 'drizzle-orm'
import type { Database } from '../../storage/db'
import { files } from '../../storage/schema'

// The items of a new version travel to D1 as one JSON parameter, read with json_each: a thousand
// items are one bound value rather than a thousand (D1 allows 100 per statement), and every check
// and insert over them stays inside the batch that writes the version. json_each and
// json_extract are SQL functions the builder does not have.

export type ItemList = { path: string | null; file_id: string }[]

export const eachItem = (list: ItemList) => sql`json_each(${JSON.stringify(list)})`

/** A field of the json_each row under consideration. */
export const itemField = (name: 'path' | 'file_id') =>
  sql<string>`json_extract(value, ${sql.raw(`'$.${name}'`)})`

/**
 * One row, `size`: the version's size (the sum of its items' sizes; a file at two paths counts
 * twice) when every item names a finalized file of the workspace, else NULL. One pass over the
 * list, each item's file looked up by its key: a LEFT JOIN keeps json_each outside, where a
 * plain join let SQLite scan the workspace's files instead (rows read growing with the
 * workspace). As a derived table (`.as()`), a statement reads it once however often it uses
 * `size`; as a scalar subquery, once each place it is written.
 */
export function readyItems(db: Database, list: ItemList, workspaceId: string) {
  return db
    .select({
      size: sql<number | null>`CASE WHEN count(${files.fileId}) = ${list.length}
        THEN coalesce(sum(${files.size}), 0) END`.as('ready_size'),
    })
    .from(eachItem(list))
    .leftJoin(
      files,
      and(
        eq(files.fileId, itemField('file_id')),
        eq(files.workspaceId, workspaceId),
        eq(files.status, 'ready'),
      ),
    )
}
