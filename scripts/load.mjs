#!/usr/bin/env node
// `npm run load`: 2,000 mixed requests from 50 concurrent clients against a real `wrangler dev`
// (the service as a person runs it, with its rate limits), then a check that every canvas the run
// created holds every version it was told it made, byte for byte. Exits 1 on any answer outside
// the ones intended (2xx/3xx, the 4xx a request was built to get, 429 from the rate limits).
//   node scripts/load.mjs [--requests 2000] [--clients 50]
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAccount, startService } from './lib/local-service.mjs'

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}
const REQUESTS = option('requests', 2000)
const CLIENTS = option('clients', 50)
const KEYS = 10 // the per-key limit (600/min) would otherwise answer most of the run with 429

const work = mkdtempSync(join(tmpdir(), 'canvas-load-'))
const service = await startService(work, ['--var', 'SIGNUP:open'])
const base = service.url
const tally = new Map() // "METHOD route status" -> count
const unexpected = []
let sent = 0

/**
 * One request, classified. `refused` lists the only statuses a request built to be refused may
 * get; `tolerated` is asked after the answer for statuses any request may also get (a canvas
 * another client deleted meanwhile answers 404); 429 is always fine.
 */
async function request(route, path, init = {}, { refused, tolerated } = {}) {
  sent++
  let res
  try {
    res = await fetch(base + path, { redirect: 'manual', ...init })
  } catch (err) {
    unexpected.push({ route, status: 'network', detail: String(err) })
    return null
  }
  const key = `${init.method ?? 'GET'} ${route} ${res.status}`
  tally.set(key, (tally.get(key) ?? 0) + 1)
  const also = tolerated?.() ?? []
  const ok =
    res.status === 429 ||
    also.includes(res.status) ||
    (refused ? refused.includes(res.status) : res.status < 400)
  if (!ok) unexpected.push({ route, status: res.status, detail: await res.clone().text() })
  return res
}

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex')
const pick = (list) => list[Math.floor(Math.random() * list.length)]

// What the service acknowledged: canvas id -> { key, versions: Map<version, sha256>, deleted }.
const canvases = new Map()
/** A version number the service gave twice would hide a lost update: it is a failure. */
function acknowledge(id, canvas, version, digest) {
  if (canvas.versions.has(version)) {
    unexpected.push({
      route: 'PATCH /v1/canvases/:id',
      status: 200,
      detail: `${id}: version ${version} acknowledged twice`,
    })
  }
  canvas.versions.set(version, digest)
}

/** A canvas another client is deleting may answer 404: that answer is tolerated. */
const gone = (canvas) => () => (canvas.deleting || canvas.deleted ? [404] : [])
const live = () => [...canvases.entries()].filter(([, c]) => !c.deleted && !c.deleting)

function multipart(content, fields = {}) {
  const form = new FormData()
  form.append('file', new Blob([content]), 'load.txt')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return form
}

const operations = [
  // Writes that make canvases and versions.
  [
    4,
    async (key) => {
      const content = randomBytes(64 + Math.floor(Math.random() * 2048))
      const res = await request('/v1/canvases', '/v1/canvases', {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}` },
        body: multipart(content, { permanent: 'true' }),
      })
      if (res?.status !== 201) return
      const canvas = await res.json()
      canvases.set(canvas.canvas_id, {
        key,
        versions: new Map([[1, sha(content)]]),
        deleted: false,
      })
    },
  ],
  [
    3,
    async (key) => {
      const content = randomBytes(128)
      const meta = {
        sha256: sha(content),
        ext: 'bin',
        size: content.length,
        mime: 'application/octet-stream',
      }
      const json = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }
      const presign = await request('/v1/upload/presign', '/v1/upload/presign', {
        method: 'POST',
        headers: json,
        body: JSON.stringify(meta),
      })
      if (presign?.status !== 200) return
      const target = await presign.json()
      if (!target.exists) {
        const put = await fetch(target.upload_url, {
          method: 'PUT',
          body: content,
          headers: target.headers,
        })
        sent++
        if (put.status !== 200)
          unexpected.push({ route: 'PUT upload_url', status: put.status, detail: await put.text() })
      }
      const fin = await request('/v1/upload/finalize', '/v1/upload/finalize', {
        method: 'POST',
        headers: json,
        body: JSON.stringify(meta),
      })
      if (fin?.status !== 200) return
      const { file } = await fin.json()
      const own = live().filter(([, c]) => c.key === key)
      if (own.length === 0) return
      const [id, canvas] = pick(own)
      const res = await request(
        '/v1/canvases/:id',
        `/v1/canvases/${id}`,
        {
          method: 'PATCH',
          headers: json,
          body: JSON.stringify({ file_id: file.file_id }),
        },
        { tolerated: gone(canvas) },
      )
      if (res?.status === 200) acknowledge(id, canvas, (await res.json()).version, meta.sha256)
    },
  ],
  [
    3,
    async (key) => {
      const own = live().filter(([, c]) => c.key === key)
      if (own.length === 0) return
      const [id, canvas] = pick(own)
      const content = randomBytes(256)
      const res = await request(
        '/v1/canvases/:id',
        `/v1/canvases/${id}`,
        { method: 'PATCH', headers: { Authorization: `Bearer ${key}` }, body: multipart(content) },
        { tolerated: gone(canvas) },
      )
      if (res?.status === 200) acknowledge(id, canvas, (await res.json()).version, sha(content))
    },
  ],
  // Reads.
  [
    6,
    async (key) => {
      const own = live().filter(([, c]) => c.key === key)
      if (own.length === 0) return
      const [id, canvas] = pick(own)
      const auth = { headers: { Authorization: `Bearer ${key}` } }
      await request('/v1/canvases/:id', `/v1/canvases/${id}`, auth, { tolerated: gone(canvas) })
    },
  ],
  [
    3,
    async (key) => {
      await request('/v1/canvases', '/v1/canvases?limit=20', {
        headers: { Authorization: `Bearer ${key}` },
      })
    },
  ],
  [
    2,
    async (key) => {
      const own = live().filter(([, c]) => c.key === key)
      if (own.length === 0) return
      const [id, canvas] = pick(own)
      const auth = { headers: { Authorization: `Bearer ${key}` } }
      const res = await request('/v1/canvases/:id/content', `/v1/canvases/${id}/content`, auth, {
        tolerated: gone(canvas),
      })
      if (res?.status === 302) {
        sent++
        const got = await fetch(res.headers.get('location'))
        if (got.status !== 200)
          unexpected.push({ route: 'GET signed URL', status: got.status, detail: '' })
        await got.arrayBuffer()
      }
    },
  ],
  [
    2,
    async (key) => {
      const own = live().filter(([, c]) => c.key === key)
      if (own.length === 0) return
      const [id, canvas] = pick(own)
      const share = await request(
        '/v1/canvases/:id/shares',
        `/v1/canvases/${id}/shares`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ password: 'load test', expires_in: '1h' }),
        },
        { tolerated: gone(canvas) },
      )
      if (share?.status !== 201) return
      const { token } = await share.json()
      await request(
        '/share/:token/content',
        `/share/${token}/content`,
        {
          headers: { 'X-Share-Password': 'wrong' },
        },
        { refused: [403], tolerated: gone(canvas) },
      )
      await request(
        '/share/:token/content',
        `/share/${token}/content`,
        { headers: { 'X-Share-Password': 'load test' } },
        { tolerated: gone(canvas) },
      )
    },
  ],
  [
    1,
    async (key) => {
      await request('/v1/usage', '/v1/usage', { headers: { Authorization: `Bearer ${key}` } })
    },
  ],
  // Requests built to be refused.
  [
    2,
    async (key) => {
      await request(
        '/v1/canvases',
        '/v1/canvases',
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ file_id: 'nope', title: 'a\u0000b', ext: '../x' }),
        },
        { refused: [400] },
      )
    },
  ],
  [
    1,
    async () => {
      await request(
        '/v1/canvases/:id',
        '/v1/canvases/doesnotexist',
        {
          headers: { Authorization: 'Bearer svc_unknownunknownunknownunknownunknown00' },
        },
        { refused: [401] },
      )
    },
  ],
  [
    1,
    async (key, other) => {
      const any = live()
      if (any.length === 0) return
      const [id] = pick(any)
      // Another workspace's key: its canvases do not exist for this one.
      await request(
        '/v1/canvases/:id',
        `/v1/canvases/${id}`,
        { headers: { Authorization: `Bearer ${other}` } },
        { refused: [404] },
      )
    },
  ],
  // A delete, now and then.
  [
    1,
    async (key) => {
      const own = live().filter(([, c]) => c.key === key)
      if (own.length < 5) return
      const [id, canvas] = pick(own)
      canvas.deleting = true
      const res = await request('/v1/canvases/:id', `/v1/canvases/${id}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${key}` },
      })
      if (res?.status === 200) canvas.deleted = true
      else canvas.deleting = false
    },
  ],
]
const weighted = operations.flatMap(([weight, op]) => Array.from({ length: weight }, () => op))

let failed = false
try {
  const owner = await createAccount(base, 'load@example.com')
  const other = await createAccount(base, 'other@example.com')
  const keys = [owner.key]
  for (let i = 1; i < KEYS; i++) {
    const res = await fetch(`${base}/auth/keys`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: owner.cookie },
      body: JSON.stringify({ name: `load ${i}` }),
    })
    keys.push((await res.json()).key)
  }
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const key = keys[client % keys.length]
      while (sent < REQUESTS) await pick(weighted)(key, other.key)
    }),
  )
  const seconds = (performance.now() - started) / 1000

  // Afterwards: every canvas holds every acknowledged version, byte for byte.
  let versionsChecked = 0
  const broken = []
  for (const [id, canvas] of canvases) {
    const auth = { Authorization: `Bearer ${canvas.key}` }
    const res = await fetch(`${base}/v1/canvases/${id}`, { headers: auth })
    if (canvas.deleted) {
      if (res.status !== 404) broken.push(`${id}: deleted, but answers ${res.status}`)
      continue
    }
    if (res.status !== 200) {
      broken.push(`${id}: answers ${res.status}`)
      continue
    }
    const current = (await res.json()).version
    const newest = Math.max(...canvas.versions.keys())
    if (current < newest) broken.push(`${id}: at version ${current}, acknowledged ${newest}`)
    for (const [version, digest] of canvas.versions) {
      const link = await fetch(`${base}/v1/canvases/${id}/versions/${version}`, {
        headers: auth,
        redirect: 'manual',
      })
      const bytes = Buffer.from(await (await fetch(link.headers.get('location'))).arrayBuffer())
      if (sha(bytes) !== digest) broken.push(`${id} v${version}: content differs`)
      versionsChecked++
    }
  }

  const rows = [...tally.entries()].sort(([a], [b]) => a.localeCompare(b))
  console.log(
    `${sent} requests from ${CLIENTS} clients in ${seconds.toFixed(1)} s (${(sent / seconds).toFixed(0)} req/s) against wrangler dev`,
  )
  console.log('| Request | Status | Count |\n| --- | ---: | ---: |')
  for (const [name, count] of rows) {
    const [method, route, status] = name.split(' ')
    console.log(`| ${method} ${route} | ${status} | ${count} |`)
  }
  console.log(`unexpected answers: ${unexpected.length}`)
  for (const u of unexpected.slice(0, 20))
    console.log(`  ${u.route} ${u.status} ${u.detail.slice(0, 200)}`)
  const alive = [...canvases.values()].filter((c) => !c.deleted).length
  console.log(
    `canvases created: ${canvases.size} (${alive} kept, ${canvases.size - alive} deleted); versions verified byte for byte: ${versionsChecked}; broken: ${broken.length}`,
  )
  for (const b of broken.slice(0, 20)) console.log(`  ${b}`)
  failed = unexpected.length > 0 || broken.length > 0
} finally {
  service.stop()
  rmSync(work, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
