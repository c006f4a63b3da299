// The data the benchmark measures: an account with canvases and a share link through the API,
// and, for scale, tens of thousands of canvases written straight into D1.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAccount, fetchRetry as fetch } from '../lib/local-service.mjs'

/** A signed-up account's read+write key. */
const account = async (url, email) => (await createAccount(url, email)).key

/** A permanent canvas made by a multipart upload; returns its id. */
async function create(url, key, name, content) {
  const form = new FormData()
  form.append('file', new Blob([content]), name)
  form.append('permanent', 'true')
  const res = await fetch(`${url}/v1/canvases`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
    body: form,
  })
  return (await res.json()).canvas_id
}

/** 20 private canvases (a list page), a public one, and a share link of the last private one. */
export async function seedApp(url) {
  const key = await account(url, 'bench@example.com')
  let canvasId
  for (let i = 0; i < 20; i++) {
    canvasId = await create(url, key, `note-${i}.md`, `# Note ${i}\n\nSome text.`)
  }
  const publicId = await create(url, key, 'public.md', '# Public\n\nHello.')
  await fetch(`${url}/v1/canvases/${publicId}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ visibility: 'public' }),
  })
  const share = await fetch(`${url}/v1/canvases/${canvasId}/shares`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
  })
  const { token } = await share.json()
  return { key, canvasId, publicId, token }
}

/** The bare D1 Worker's database gets its own copy of the canvas row it reads. */
export async function copyCanvasRow(fromMf, toMf, canvasId) {
  const row = await (
    await fromMf.getD1Database('DB')
  )
    .prepare('SELECT * FROM canvases WHERE canvas_id = ?')
    .bind(canvasId)
    .first()
  const db = await toMf.getD1Database('DB')
  const columns = Object.keys(row)
  await db.batch([
    db.prepare("INSERT INTO users VALUES (?, 'x@example.com', 'x', 0)").bind(row.owner_user_id),
    db
      .prepare("INSERT INTO workspaces VALUES (?, 'x', ?, 0)")
      .bind(row.workspace_id, row.owner_user_id),
    db
      .prepare(
        `INSERT INTO canvases (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      )
      .bind(...Object.values(row)),
  ])
}

/** A wrk script that POSTs one presign body. */
export function presignScript(work) {
  const path = join(work, 'presign.lua')
  const body = JSON.stringify({ sha256: 'ab'.repeat(32), ext: 'txt', size: 10, mime: 'text/plain' })
  writeFileSync(
    path,
    `wrk.method = "POST"\nwrk.body = '${body}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  )
  return path
}

/** A new workspace holding `count` canvases (ids `s<count>x<n>`); returns its API key. */
export async function seedWorkspace(app, count) {
  const key = await account(app.url, `scale${count}@example.com`)
  const me = await (
    await fetch(`${app.url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } })
  ).json()
  const first = await create(app.url, key, 'seed.txt', 'seed')
  const ids = Array.from({ length: count }, (_, i) => `s${count}x${i}`)
  await insertCanvases(app, me.workspace.workspace_id, first, ids, null)
  return key
}

/** `count` canvases (ids `sweepbench<n>`) of the bench account that expired a second ago. */
export async function seedExpired(app, count) {
  const db = await app.mf.getD1Database('DB')
  const me = await db
    .prepare(
      `SELECT c.workspace_id, c.canvas_id FROM canvases c JOIN users u ON u.user_id = c.owner_user_id
       WHERE u.email = 'bench@example.com' LIMIT 1`,
    )
    .first()
  const ids = Array.from({ length: count }, (_, i) => `sweepbench${i}`)
  await insertCanvases(app, me.workspace_id, me.canvas_id, ids, Date.now() - 1000)
}

/**
 * Canvases straight into D1, 1,000 a batch, each with a version 1 holding the content of
 * `modelId`'s current version; the API would take minutes. Newest first by id order.
 */
async function insertCanvases(app, workspaceId, modelId, ids, expiresAt) {
  const db = await app.mf.getD1Database('DB')
  const model = await db
    .prepare(
      `SELECT c.owner_user_id, v.file_id, v.size FROM canvases c
       JOIN versions v ON v.canvas_id = c.canvas_id AND v.version = c.version WHERE c.canvas_id = ?`,
    )
    .bind(modelId)
    .first()
  const now = Date.now()
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = JSON.stringify(ids.slice(i, i + 1000))
    await db.batch([
      db
        .prepare(
          `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
                                 visibility, version, created_at, updated_at, expires_at)
           SELECT value, ?, ?, 'seeded', 'txt', 'text', 'private', 1, ? - key, ? - key, ?
           FROM json_each(?)`,
        )
        .bind(workspaceId, model.owner_user_id, now - i, now - i, expiresAt, chunk),
      db
        .prepare(
          `INSERT INTO versions (canvas_id, version, file_id, size, created_at)
           SELECT value, 1, ?, ?, ? FROM json_each(?)`,
        )
        .bind(model.file_id, model.size, now, chunk),
    ])
  }
}
