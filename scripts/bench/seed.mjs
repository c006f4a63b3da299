// The data the benchmark measures: an account with canvases and a share link through the API,
// and, for scale, tens of thousands of canvases written straight into D1. Every step is retried
// when its socket fails or the runtime answers 5xx (scripts/lib/retry.mjs) and made safe to
// repeat: API writes carry an Idempotency-Key, D1 inserts skip rows already there.
import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAccount, expectStatus, fetchRetry } from '../lib/local-service.mjs'
import { retry } from '../lib/retry.mjs'

/** A signed-up account's read+write key. */
const account = async (url, email) => (await createAccount(url, email)).key

/**
 * One API request and its answer's JSON, refused unless `status`. A write is sent with an
 * Idempotency-Key that its retries share, so one whose answer was lost is answered again rather
 * than done twice.
 */
async function api(url, key, method, path, { body, json, status = 200 } = {}) {
  const headers = { Authorization: `Bearer ${key}` }
  if (method !== 'GET') headers['Idempotency-Key'] = randomUUID()
  if (json !== undefined) headers['Content-Type'] = 'application/json'
  const res = await fetchRetry(`${url}${path}`, {
    method,
    headers,
    body: json !== undefined ? JSON.stringify(json) : body,
  })
  await expectStatus(res, [status], `${method} ${path}`)
  return res.json()
}

/** One step against the app's D1 through Miniflare's proxy, which is a socket too: retried. */
export const withDb = (mf, what, step) =>
  retry(what, async () => step(await mf.getD1Database('DB')))

/** A permanent canvas made by a multipart upload; returns its id. */
async function create(url, key, name, content) {
  const form = new FormData()
  form.append('file', new Blob([content]), name)
  form.append('permanent', 'true')
  const made = await api(url, key, 'POST', '/v1/canvases', { body: form, status: 201 })
  return made.canvas_id
}

/** 20 private canvases (a list page), a public one, and a share link of the last private one. */
export async function seedApp(url) {
  const key = await account(url, 'bench@example.com')
  let canvasId
  for (let i = 0; i < 20; i++) {
    canvasId = await create(url, key, `note-${i}.md`, `# Note ${i}\n\nSome text.`)
  }
  const publicId = await create(url, key, 'public.md', '# Public\n\nHello.')
  await api(url, key, 'PATCH', `/v1/canvases/${publicId}`, { json: { visibility: 'public' } })
  const share = await api(url, key, 'POST', `/v1/canvases/${canvasId}/shares`, { status: 201 })
  return { key, canvasId, publicId, token: share.token }
}

/** The bare D1 Worker's database gets its own copy of the canvas row it reads. */
export async function copyCanvasRow(fromMf, toMf, canvasId) {
  const row = await withDb(fromMf, 'reading the canvas row to copy', (db) =>
    db.prepare('SELECT * FROM canvases WHERE canvas_id = ?').bind(canvasId).first(),
  )
  if (!row) throw new Error(`copying canvas ${canvasId}: no such row`)
  const columns = Object.keys(row)
  // ON CONFLICT DO NOTHING: a retry after a lost answer finds the rows there.
  await withDb(toMf, 'copying the canvas row to the bare D1 Worker', (db) =>
    db.batch([
      db
        .prepare(
          `INSERT INTO users (user_id, email, password_hash, created_at)
           VALUES (?, 'x@example.com', 'x', 0) ON CONFLICT DO NOTHING`,
        )
        .bind(row.owner_user_id),
      db
        .prepare(
          `INSERT INTO workspaces (workspace_id, name, owner_user_id, created_at)
           VALUES (?, 'x', ?, 0) ON CONFLICT DO NOTHING`,
        )
        .bind(row.workspace_id, row.owner_user_id),
      db
        .prepare(
          `INSERT INTO canvases (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
           ON CONFLICT DO NOTHING`,
        )
        .bind(...Object.values(row)),
    ]),
  )
}

/** A wrk script that POSTs one presign body: content registered, never uploaded, asked again. */
export function presignScript(work) {
  const path = join(work, 'presign.lua')
  const body = JSON.stringify({ sha256: 'ab'.repeat(32), ext: 'txt', size: 10, mime: 'text/plain' })
  writeFileSync(
    path,
    `wrk.method = "POST"\nwrk.body = '${body}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  )
  return path
}

/**
 * A wrk script that presigns new content on every request (a sha256 from the time the run started
 * and a counter, so no two runs share one): what a push of files never seen before costs. The
 * request is built once and only its sha256 replaced: wrk.format on every request cost wrk enough
 * of the machine's two cores to take a tenth off the Worker's figure.
 */
export function freshPresignScript(work) {
  const path = join(work, 'presign-fresh.lua')
  writeFileSync(
    path,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local stamp = string.format("%08x", os.time())
local before, after = '{"sha256":"', '","ext":"txt","size":10,"mime":"text/plain"}'
local prefix
local n = 0
request = function()
  if not prefix then
    local whole = wrk.format(nil, nil, nil, before .. string.rep("0", 64) .. after)
    prefix = whole:sub(1, #whole - #before - 64 - #after)
  end
  n = n + 1
  return prefix .. before .. stamp .. string.format("%024x", n) .. string.rep("e", 32) .. after
end
`,
  )
  return path
}

/** A new workspace holding `count` canvases (ids `s<count>x<n>`); returns its API key. */
export async function seedWorkspace(app, count) {
  const key = await account(app.url, `scale${count}@example.com`)
  const me = await api(app.url, key, 'GET', '/v1/me')
  const first = await create(app.url, key, 'seed.txt', 'seed')
  const ids = Array.from({ length: count }, (_, i) => `s${count}x${i}`)
  await insertCanvases(app, me.workspace.workspace_id, first, ids, null)
  return key
}

/** `count` canvases (ids `sweepbench<n>`) of the bench account that expired a second ago. */
export async function seedExpired(app, count) {
  const me = await withDb(app.mf, "finding the bench account's workspace", (db) =>
    db
      .prepare(
        `SELECT c.workspace_id, c.canvas_id FROM canvases c JOIN users u ON u.user_id = c.owner_user_id
         WHERE u.email = 'bench@example.com' LIMIT 1`,
      )
      .first(),
  )
  if (!me) throw new Error('seeding expired canvases: the bench account (seedApp) has no canvas')
  const ids = Array.from({ length: count }, (_, i) => `sweepbench${i}`)
  await insertCanvases(app, me.workspace_id, me.canvas_id, ids, Date.now() - 1000)
}

/**
 * Canvases straight into D1, 1,000 a batch, each with a version 1 holding the content of
 * `modelId`'s current version; the API would take minutes. Newest first by id order. A batch is
 * one transaction, retried whole; a retry after a lost answer skips the rows its first try wrote
 * (ON CONFLICT DO NOTHING, hence the `WHERE true` SQLite asks of an INSERT … SELECT with it), and
 * the batch counts the chunk's rows afterwards, so none can be missing unnoticed.
 */
async function insertCanvases(app, workspaceId, modelId, ids, expiresAt) {
  const model = await withDb(app.mf, `reading the model canvas ${modelId}`, (db) =>
    db
      .prepare(
        `SELECT c.owner_user_id, v.file_id, v.size FROM canvases c
         JOIN versions v ON v.canvas_id = c.canvas_id AND v.version = c.version WHERE c.canvas_id = ?`,
      )
      .bind(modelId)
      .first(),
  )
  if (!model) throw new Error(`seeding canvases: the model canvas ${modelId} has no version`)
  const now = Date.now()
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000)
    const what = `inserting canvases ${i + 1}–${i + chunk.length} of ${ids.length}`
    const [, , , counted] = await withDb(app.mf, what, (db) =>
      db.batch(insertChunk(db, { workspaceId, model, newest: now - i, now, expiresAt, chunk })),
    )
    const { canvases, versions } = counted.results[0]
    if (canvases !== chunk.length || versions !== chunk.length)
      throw new Error(`${what}: ${canvases} canvases and ${versions} versions in D1 afterwards`)
  }
}

/**
 * The statements of one chunk: its canvases (created a millisecond apart from `newest` back),
 * their versions 1 with their one item each, as the API writes them, and a count of both.
 */
function insertChunk(db, { workspaceId, model, newest, now, expiresAt, chunk }) {
  const json = JSON.stringify(chunk)
  return [
    db
      .prepare(
        `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
                               visibility, version, created_at, updated_at, expires_at, size)
         SELECT value, ?, ?, 'seeded', 'txt', 'text', 'private', 1, ? - key, ? - key, ?, ?
         FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
      )
      .bind(workspaceId, model.owner_user_id, newest, newest, expiresAt, model.size, json),
    db
      .prepare(
        `INSERT INTO versions (canvas_id, version, file_id, size, created_at, main_path, item_count,
                               workspace_id)
         SELECT value, 1, ?, ?, ?, 'index.txt', 1, ? FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
      )
      .bind(model.file_id, model.size, now, workspaceId, json),
    db
      .prepare(
        `INSERT INTO version_items (canvas_id, version, path, file_id)
         SELECT value, 1, 'index.txt', ? FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
      )
      .bind(model.file_id, json),
    db
      .prepare(
        `SELECT (SELECT COUNT(*) FROM canvases WHERE canvas_id IN (SELECT value FROM json_each(?)))
                  AS canvases,
                (SELECT COUNT(*) FROM versions
                  WHERE version = 1 AND canvas_id IN (SELECT value FROM json_each(?))) AS versions`,
      )
      .bind(json, json),
  ]
}
