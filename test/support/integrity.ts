import { env } from 'cloudflare:test'
import { expect } from 'vitest'
import { checkObject } from '../../src/storage/blobs'
import { objectsOf } from './state'

// What a workspace shows its users, and the promises behind it: no canvas without its versions,
// no version without its files (every item, the main one among them), no finalized file without
// its bytes.

/**
 * The canvases as a user sees them (no ids or times, so two workspaces can be compared): live ones
 * only, since a deleted canvas is an expired one until the sweep removes its rows.
 */
export async function visibleState(workspaceId: string) {
  const now = Date.now()
  const live = `(c.expires_at IS NULL OR c.expires_at > ${now})`
  const [canvases, versions, shares] = await env.DB.batch([
    env.DB.prepare(
      `SELECT canvas_id, title, ext, renderer_id, visibility, version, expires_at IS NULL AS permanent
       FROM canvases c WHERE workspace_id = ? AND ${live}`,
    ).bind(workspaceId),
    env.DB.prepare(
      `SELECT v.canvas_id, v.version, f.sha256, v.main_path,
         (SELECT group_concat(i.path || '=' || fi.sha256, ',') FROM
           (SELECT * FROM version_items WHERE canvas_id = v.canvas_id AND version = v.version
            ORDER BY path) i LEFT JOIN files fi ON fi.file_id = i.file_id) AS items
       FROM versions v
       JOIN canvases c ON c.canvas_id = v.canvas_id LEFT JOIN files f ON f.file_id = v.file_id
       WHERE c.workspace_id = ? AND ${live} ORDER BY v.version`,
    ).bind(workspaceId),
    env.DB.prepare(
      `SELECT s.canvas_id, s.view_count, s.password_hash IS NOT NULL AS protected FROM share_links s
       JOIN canvases c ON c.canvas_id = s.canvas_id WHERE c.workspace_id = ? AND ${live}`,
    ).bind(workspaceId),
  ])
  type Row = Record<string, unknown> & { canvas_id: string; title: string }
  const of = (rows: unknown[], id: string) =>
    (rows as Row[]).filter((r) => r.canvas_id === id).map(({ canvas_id: _, ...rest }) => rest)
  return (canvases.results as Row[])
    .map(({ canvas_id, ...canvas }) => ({
      ...canvas,
      versions: of(versions.results, canvas_id),
      shares: of(shares.results, canvas_id),
    }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
}

/** The promises that must hold after any failure, at any step. */
export async function expectIntact(workspaceId: string, where: string) {
  const [canvases, versions, files, items] = await env.DB.batch([
    env.DB.prepare('SELECT canvas_id, version FROM canvases WHERE workspace_id = ?').bind(
      workspaceId,
    ),
    env.DB.prepare(
      `SELECT v.canvas_id, v.version, f.status, f.workspace_id FROM versions v
       JOIN canvases c ON c.canvas_id = v.canvas_id LEFT JOIN files f ON f.file_id = v.file_id
       WHERE c.workspace_id = ?`,
    ).bind(workspaceId),
    env.DB.prepare(
      "SELECT sha256, size, blob_key FROM files WHERE workspace_id = ? AND status = 'ready'",
    ).bind(workspaceId),
    env.DB.prepare(
      `SELECT v.canvas_id, v.version, v.item_count,
         (SELECT count(*) FROM version_items i WHERE i.canvas_id = v.canvas_id AND i.version = v.version) AS held,
         EXISTS (SELECT 1 FROM version_items i WHERE i.canvas_id = v.canvas_id AND i.version = v.version
                 AND i.path = v.main_path AND i.file_id = v.file_id) AS main_held,
         (SELECT count(*) FROM version_items i LEFT JOIN files f ON f.file_id = i.file_id
          WHERE i.canvas_id = v.canvas_id AND i.version = v.version
            AND (f.status IS NOT 'ready' OR f.workspace_id IS NOT c.workspace_id)) AS unready
       FROM versions v JOIN canvases c ON c.canvas_id = v.canvas_id WHERE c.workspace_id = ?`,
    ).bind(workspaceId),
  ])
  for (const v of items.results as Record<string, number>[]) {
    expect(v.held, `${where}: the items of a version`).toBe(v.item_count)
    expect(v.main_held, `${where}: the main item of a version`).toBe(1)
    expect(v.unready, `${where}: the files of a version's items`).toBe(0)
  }
  const rows = versions.results as {
    canvas_id: string
    version: number
    status: string | null
    workspace_id: string | null
  }[]
  for (const c of canvases.results as { canvas_id: string; version: number }[]) {
    const numbers = rows.filter((v) => v.canvas_id === c.canvas_id).map((v) => v.version)
    expect(
      numbers.sort((a, b) => a - b),
      `${where}: versions of a canvas`,
    ).toEqual(Array.from({ length: c.version }, (_, i) => i + 1))
  }
  for (const v of rows) {
    expect(v.status, `${where}: the file of a version`).toBe('ready')
    expect(v.workspace_id, `${where}: the file of a version`).toBe(workspaceId)
  }
  for (const f of files.results as { sha256: string; size: number; blob_key: string }[]) {
    const check = await checkObject(env.BUCKET, f.blob_key, f.sha256, f.size)
    expect(check, `${where}: the bytes of a finalized file`).toBe('ok')
  }
}

/** Nothing left over: every object has its file row, every file a version that needs it. */
export async function expectTidy(workspaceId: string, where: string) {
  const rows = await env.DB.prepare(
    `SELECT f.blob_key, f.status,
       EXISTS (SELECT 1 FROM version_items i WHERE i.file_id = f.file_id) AS used
     FROM files f WHERE f.workspace_id = ?`,
  )
    .bind(workspaceId)
    .all<{ blob_key: string; status: string; used: number }>()
  expect(
    rows.results.filter((r) => !r.used),
    `${where}: files no version uses`,
  ).toEqual([])
  const keys = new Set(rows.results.map((r) => r.blob_key))
  expect(
    (await objectsOf(workspaceId)).filter((o) => !keys.has(o.key)),
    `${where}: objects without a file`,
  ).toEqual([])
}
