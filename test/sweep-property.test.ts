import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { sweep } from '../src/domain/sweep'
import { bytesOf, call, follow, json, metaOf, newAccount } from './support/api'
import { runs } from './support/runs'
import { realServices } from './support/state'

// Random sequences of create, update, delete, expire, share and sweep (some overlapping each other
// or an update), of single files and of sites, must leave every file of every live version
// downloadable and intact, and, past the grace period, no file row or storage object that nothing
// references.

const HOUR = 3600_000
const CONTENTS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((w) => `${w} content`)
const runSweep = (now: number) => sweep(realServices(), { now })

type Op =
  | { kind: 'create'; content: number; permanent: boolean; site: boolean }
  | { kind: 'update'; canvas: number; content: number; withSweep: boolean; site: boolean }
  | { kind: 'delete'; canvas: number }
  | { kind: 'expire'; canvas: number }
  | { kind: 'share'; canvas: number }
  | { kind: 'sweep'; overlap: boolean; later: boolean }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    content: fc.nat(4),
    permanent: fc.boolean(),
    site: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    canvas: fc.nat(9),
    content: fc.nat(4),
    withSweep: fc.boolean(),
    site: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('delete' as const), canvas: fc.nat(9) }),
  fc.record({ kind: fc.constant('expire' as const), canvas: fc.nat(9) }),
  fc.record({ kind: fc.constant('share' as const), canvas: fc.nat(9) }),
  fc.record({ kind: fc.constant('sweep' as const), overlap: fc.boolean(), later: fc.boolean() }),
)

/** A version's files by path: a single file is the one item `index.txt`. */
type Files = Record<string, string>
type Model = { id: string; permanent: boolean; versions: Files[] }

/**
 * The content of a new version: one file, or a site of three whose files overlap other sites'
 * (the same bytes at other paths and in other versions), the sharing the sweep must respect.
 */
function filesOf(content: number, site: boolean): Files {
  if (!site) return { 'index.txt': CONTENTS[content] }
  return {
    'index.txt': CONTENTS[content],
    'data/next.txt': CONTENTS[(content + 1) % CONTENTS.length],
    'data/copy.txt': CONTENTS[content],
  }
}

/** Uploads every file; the request body's content part, or null when a sweep got in the way. */
async function pushFiles(key: string, files: Files) {
  const items = []
  for (const [path, text] of Object.entries(files)) {
    const fileId = await pushContent(key, text)
    if (!fileId) return null
    items.push({ path, file_id: fileId })
  }
  return items.length === 1 ? { file_id: items[0].file_id } : { items }
}

/** The presigned flow; null when an overlapping sweep is removing the content (409: retry). */
async function pushContent(key: string, content: string): Promise<string | null> {
  const meta = await metaOf(bytesOf(content))
  const presign = await call('/v1/upload/presign', { method: 'POST', key, json: meta })
  if (presign.status === 409) return null
  expect(presign.status).toBe(200)
  const presigned = await json(presign)
  if (!presigned.exists) {
    const put = await call(presigned.upload_url, { method: 'PUT', body: bytesOf(content) })
    expect(put.status).toBe(200)
  }
  const finalize = await call('/v1/upload/finalize', { method: 'POST', key, json: meta })
  if (finalize.status === 409) return null
  expect(finalize.status).toBe(200)
  return (await json(finalize)).file.file_id
}

async function check(key: string, live: Model[]) {
  for (const canvas of live) {
    const versions = await json(await call(`/v1/canvases/${canvas.id}/versions`, { key }))
    expect(versions.versions.map((v: any) => v.version)).toEqual(
      canvas.versions.map((_, i) => canvas.versions.length - i),
    )
    for (let n = 1; n <= canvas.versions.length; n++) {
      for (const [path, text] of Object.entries(canvas.versions[n - 1])) {
        const res = await call(`/v1/canvases/${canvas.id}/versions/${n}/content/${path}`, { key })
        expect(await (await follow(res)).text()).toBe(text)
      }
    }
  }
}

it('keeps every live version intact and leaves nothing unreferenced', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 18 }), async (ops) => {
      const account = await newAccount()
      const key = account.key
      const canvases: Model[] = []
      const live = () => canvases.filter((c) => c.versions.length > 0)
      const pick = (i: number) => (live().length ? live()[i % live().length] : null)

      for (const step of ops) {
        if (step.kind === 'create') {
          const files = filesOf(step.content, step.site)
          const content = await pushFiles(key, files)
          if (!content) continue
          const single = 'file_id' in content ? { ext: 'txt' } : {}
          const res = await call('/v1/canvases', {
            method: 'POST',
            key,
            json: { ...content, ...single, title: 'p', permanent: step.permanent },
          })
          if (res.status === 201) {
            const id = (await json(res)).canvas_id
            canvases.push({ id, permanent: step.permanent, versions: [files] })
          } else {
            expect((await json(res)).error.code).toMatch(/^(file_not_found|upload_incomplete)$/)
          }
        } else if (step.kind === 'update') {
          const canvas = pick(step.canvas)
          if (!canvas) continue
          const files = filesOf(step.content, step.site)
          const content = await pushFiles(key, files)
          if (!content) continue
          const patch = call(`/v1/canvases/${canvas.id}`, { method: 'PATCH', key, json: content })
          const [res] = await Promise.all([
            patch,
            step.withSweep ? runSweep(Date.now() + 2 * HOUR) : null,
          ])
          if (res.status === 200) canvas.versions.push(files)
          else expect((await json(res)).error.code).toBe('file_not_found')
        } else if (step.kind === 'delete') {
          const canvas = pick(step.canvas)
          if (!canvas) continue
          const res = await call(`/v1/canvases/${canvas.id}`, { method: 'DELETE', key })
          expect(res.status).toBe(200)
          canvas.versions = []
        } else if (step.kind === 'expire') {
          const canvas = pick(step.canvas)
          if (!canvas) continue
          await env.DB.prepare('UPDATE canvases SET expires_at = ? WHERE canvas_id = ?')
            .bind(Date.now() - 1, canvas.id)
            .run()
          canvas.versions = []
        } else if (step.kind === 'share') {
          const canvas = pick(step.canvas)
          if (!canvas) continue
          const res = await call(`/v1/canvases/${canvas.id}/shares`, { method: 'POST', key })
          expect(res.status).toBe(201)
        } else {
          const now = Date.now() + (step.later ? 2 * HOUR : 0)
          await Promise.all([runSweep(now), step.overlap ? runSweep(now) : null])
        }
      }

      await check(key, live())
      // Past every grace period (and past the temporary canvases' day): only permanent ones remain.
      await runSweep(Date.now() + 25 * HOUR)
      await runSweep(Date.now() + 25 * HOUR)
      const survivors = live().filter((c) => c.permanent)
      await check(key, survivors)
      const unreferenced = await env.DB.prepare(
        `SELECT COUNT(*) AS n FROM files f WHERE f.workspace_id = ?
           AND NOT EXISTS (SELECT 1 FROM version_items i WHERE i.file_id = f.file_id)`,
      )
        .bind(account.workspaceId)
        .first<{ n: number }>()
      expect(unreferenced!.n).toBe(0)
      const listed = await env.BUCKET.list({ prefix: 'files/' })
      const ours = listed.objects.filter((o) => o.key.includes(`/${account.workspaceId}/`))
      const rows = await env.DB.prepare('SELECT blob_key FROM files WHERE workspace_id = ?')
        .bind(account.workspaceId)
        .all<{ blob_key: string }>()
      expect(ours.map((o) => o.key).sort()).toEqual(rows.results.map((r) => r.blob_key).sort())
    }),
    { numRuns: runs(30) },
  )
}, 300_000)
