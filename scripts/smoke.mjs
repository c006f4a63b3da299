#!/usr/bin/env node
// `[CANVAS_API_KEY=<key>] npm run smoke -- <url>`: checks a live deployment end to end, as a person
// would after deploying or upgrading. Without a key: health and the API description. With a key
// (one with write scope; from the environment, since npm prints a script's command line): a publish, reading it back, a share link opened anonymously, a download
// through the signed URL, and the delete, which leaves nothing behind. Exit 0 when all pass.
import { parseArgs } from 'node:util'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { key: { type: 'string' } },
})
const base = (positionals[0] ?? '').replace(/\/+$/, '')
if (!/^https?:\/\/[^/]+/.test(base)) {
  console.error(
    'usage: [CANVAS_API_KEY=<key>] npm run smoke -- <url>   (the deployment, e.g. https://canvas.example.com)',
  )
  process.exit(2)
}
if (values.key !== undefined) {
  // npm has printed the command line by now: the key was shown, and is not used.
  console.error(
    'error: npm prints the command line, so a key there is shown to anyone watching: set CANVAS_API_KEY instead (and revoke the key just shown)',
  )
  process.exit(2)
}
const key = process.env.CANVAS_API_KEY
const auth = key ? { Authorization: `Bearer ${key}` } : {}
let failed = 0
let canvasId = null

await check('GET /health answers ok', async () => {
  const res = await get('/health')
  expect(res.status === 200, `status ${res.status}`)
  expect((await res.json()).ok === true, 'ok is not true')
})
await check('GET /openapi.json describes the API', async () => {
  const doc = await (await get('/openapi.json')).json()
  expect(doc.openapi?.startsWith('3.1'), 'not an OpenAPI 3.1 document')
  expect(Boolean(doc.paths?.['/v1/canvases']), 'no /v1/canvases in it')
})
if (key) {
  const text = `smoke test ${new Date().toISOString()}`
  await check('publish a canvas (POST /v1/canvases, multipart)', async () => {
    const form = new FormData()
    form.append('file', new File([text], 'smoke.txt', { type: 'text/plain' }))
    const res = await fetch(`${base}/v1/canvases`, { method: 'POST', headers: auth, body: form })
    expect(res.status === 201, `status ${res.status}: ${await res.clone().text()}`)
    canvasId = (await res.json()).canvas_id
  })
  await check('read it back (GET /v1/canvases/:id and its content)', async () => {
    const canvas = await (await get(`/v1/canvases/${canvasId}`, auth)).json()
    expect(canvas.canvas_id === canvasId, 'another canvas answered')
    const content = await follow(`/v1/canvases/${canvasId}/content`, auth)
    expect(content === text, 'the content read back differs')
  })
  let token = null
  await check('share it, and open the link without a key', async () => {
    const res = await fetch(`${base}/v1/canvases/${canvasId}/shares`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ expires_in: '10m' }),
    })
    expect(res.status === 201, `status ${res.status}`)
    token = (await res.json()).token
    const page = await get(`/s/${token}`)
    expect(page.status === 200, `the share page answered ${page.status}`)
  })
  await check('download through the share link (302 to a signed URL)', async () => {
    expect((await follow(`/share/${token}/content?dl=1`)) === text, 'the download differs')
  })
  await check('delete it: gone everywhere at once', async () => {
    const res = await fetch(`${base}/v1/canvases/${canvasId}`, { method: 'DELETE', headers: auth })
    expect(res.status === 200, `status ${res.status}`)
    canvasId = null
    const gone = await get(`/share/${token}/content`)
    expect(gone.status === 404, `the link still answers ${gone.status}`)
  })
}
// A canvas left by a failed step is removed all the same.
if (canvasId) await fetch(`${base}/v1/canvases/${canvasId}`, { method: 'DELETE', headers: auth })
console.log(
  failed
    ? `\n${failed} check(s) failed`
    : `\nall checks passed${key ? '' : ' (set CANVAS_API_KEY for the publish round trip)'}`,
)
process.exit(failed ? 1 : 0)

async function check(name, body) {
  try {
    await body()
    console.log(`✔ ${name}`)
  } catch (err) {
    failed++
    console.log(`✘ ${name}: ${err.message}`)
  }
}

function expect(ok, message) {
  if (!ok) throw new Error(message)
}

function get(path, headers = {}) {
  return fetch(base + path, { headers, redirect: 'manual', signal: AbortSignal.timeout(30_000) })
}

/** A 302 to a signed URL, followed without the key, as a client must. */
async function follow(path, headers = {}) {
  const res = await get(path, headers)
  expect(res.status === 302, `expected a redirect, got ${res.status}`)
  const bytes = await fetch(res.headers.get('Location'), { signal: AbortSignal.timeout(30_000) })
  expect(bytes.ok, `the signed URL answered ${bytes.status}`)
  return bytes.text()
}
