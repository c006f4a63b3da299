import { and, eq, notExists, sql, type Column } from 'drizzle-orm'
import type { Database } from '../storage/db'
import { files } from '../storage/schema'

// The items of a new version travel to D1 as one JSON parameter, read with json_each: a thousand
// items are one bound value rather than a thousand (D1 allows 100 per statement), and every check
// and insert over them stays inside the batch that writes the version. json_each and
// json_extract are SQL functions the builder does not have.

export type ItemList = { path: string | null; file_id: string }[]

export const eachItem = (list: ItemList) => sql`json_each(${JSON.stringify(list)})`

/** A field of the json_each row under consideration. */
export const itemField = (name: 'path' | 'file_id') =>
  sql<string>`json_extract(value, ${sql.raw(`'$.${name}'`)})`

/** The item's file, if it is a finalized file of `workspaceId`. */
function readyFile(workspaceId: Column | string) {
  return and(
    eq(files.fileId, itemField('file_id')),
    eq(files.workspaceId, workspaceId),
    eq(files.status, 'ready'),
  )
}

/** True when every item names a finalized file of the workspace. */
export function allItemsReady(db: Database, list: ItemList, workspaceId: Column | string) {
  const unready = db
    .select({ one: sql`1` })
    .from(eachItem(list))
    .where(
      notExists(
        db
          .select({ one: sql`1` })
          .from(files)
          .where(readyFile(workspaceId)),
      ),
    )
  return notExists(unready)
}

/** The version's size: the sum of its items' sizes (a file at two paths counts twice). */
export function itemsSize(db: Database, list: ItemList, workspaceId: Column | string) {
  const sum = db
    .select({ size: sql<number>`coalesce(sum(${files.size}), 0)` })
    .from(eachItem(list))
    .innerJoin(files, readyFile(workspaceId))
  return sql<number>`${sum}`
}
