import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import {
  createCanvas,
  deleteCanvas,
  makePermanent,
  updateCanvas,
} from '../src/domain/canvases/canvases'
import { finalizeUpload, presignUpload, storeDirect } from '../src/domain/files'
import { openShareContent } from '../src/domain/shares/public'
import type { Services } from '../src/domain/services'
import type { Actor } from '../src/domain/actor'
import { createShare, revokeShare, revokeShares } from '../src/domain/shares/shares'
import { sweep } from '../src/domain/sweep'
import { workspaceUsage } from '../src/domain/usage'
import { AppError } from '../src/lib/errors'
import { readSettings } from '../src/lib/settings'
import { blobKey } from '../src/storage/blobs'
import { bytesOf, metaOf, newAccount } from './support/api'
import { runs } from './support/runs'
import { realServices } from './support/state'
import { recountUsages } from './support/usage-recount'

// Random sequences of writes to two workspaces (publish, new versions, deletes, visibility,
// permanence, share links with an expiry or a view limit and their views and revocations, uploads
// left pending or finalized, canvases expired or deleted outright by SQL as another writer would,
// the sweep, in batches of any size) with time passing in between: after each step, usage from
// the running totals answers what counting every row answers, at the clock's time and at earlier
// and later ones.

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const CONTENTS = ['one', 'two', 'three', 'four'].map((w) => `${w} usage content`)
// Steps of the clock: within an hour, past a link's expiry, past a temporary canvas's day, past
// the sweep's grace for unheld files, past the 30 days a link is kept after it expired. The short
// ones more often, so that links expire while their canvases live on.
const STEPS = [MINUTE, HOUR, HOUR, 3 * HOUR, 3 * HOUR, 3 * HOUR, DAY + HOUR, DAY + HOUR, 31 * DAY]
// Where presign signs its upload URL: the steps put the bytes straight into the bucket instead.
const TARGET = {
  base: 'http://canvas.test',
  accessKeyId: 'k',
  secretAccessKey: 's',
  region: 'auto',
}

type Op =
  | { kind: 'publish'; ws: number; content: number; permanent: boolean; site: boolean }
  | { kind: 'version'; ws: number; canvas: number; content: number; site: boolean }
  | { kind: 'delete'; ws: number; canvas: number }
  | { kind: 'visibility'; ws: number; canvas: number; public: boolean }
  | { kind: 'permanent'; ws: number; canvas: number }
  | { kind: 'expire'; ws: number; canvas: number }
  | { kind: 'remove'; ws: number; canvas: number }
  | { kind: 'share'; ws: number; canvas: number; hours: number | null; views: number | null }
  | { kind: 'view'; link: number }
  | { kind: 'revoke'; link: number }
  | { kind: 'revokeAll'; ws: number; canvas: number }
  | { kind: 'upload'; ws: number; content: number; finalize: boolean }
  | { kind: 'sweep'; batch: number | null }
  | { kind: 'wait'; step: number }

const ws = fc.nat(1)
const canvas = fc.nat(7)
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('publish' as const),
      ws,
      content: fc.nat(3),
      permanent: fc.boolean(),
      site: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('version' as const),
      ws,
      canvas,
      content: fc.nat(3),
      site: fc.boolean(),
    }),
  },
  fc.record({ kind: fc.constant('delete' as const), ws, canvas }),
  fc.record({ kind: fc.constant('visibility' as const), ws, canvas, public: fc.boolean() }),
  fc.record({ kind: fc.constant('permanent' as const), ws, canvas }),
  fc.record({ kind: fc.constant('expire' as const), ws, canvas }),
  fc.record({ kind: fc.constant('remove' as const), ws, canvas }),
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('share' as const),
      ws,
      canvas,
      hours: fc.option(fc.integer({ min: 1, max: 30 }), { freq: 4 }),
      views: fc.option(fc.integer({ min: 1, max: 2 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('view' as const), link: fc.nat(19) }) },
  fc.record({ kind: fc.constant('revoke' as const), link: fc.nat(19) }),
  fc.record({ kind: fc.constant('revokeAll' as const), ws, canvas }),
  fc.record({
    kind: fc.constant('upload' as const),
    ws,
    content: fc.nat(3),
    finalize: fc.boolean(),
  }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('sweep' as const),
      // Small batches take a canvas's items over several, the canvas itself with the last.
      batch: fc.option(fc.integer({ min: 1, max: 3 })),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('wait' as const), step: fc.nat(STEPS.length - 1) }),
  },
)

// Each run starts from canvases of both kinds in both workspaces, with links of every kind.
const START: Op[] = [
  { kind: 'publish', ws: 0, content: 0, permanent: true, site: false },
  { kind: 'publish', ws: 0, content: 1, permanent: false, site: true },
  { kind: 'publish', ws: 1, content: 2, permanent: true, site: false },
  { kind: 'publish', ws: 1, content: 3, permanent: false, site: false },
  { kind: 'share', ws: 0, canvas: 0, hours: 1, views: null },
  { kind: 'share', ws: 0, canvas: 1, hours: null, views: 1 },
  { kind: 'share', ws: 1, canvas: 0, hours: 2, views: 2 },
  { kind: 'share', ws: 1, canvas: 1, hours: null, views: null },
]

/** Refusals the steps may meet (a canvas gone, content being removed, a link used up): no change. */
async function refusable(work: () => Promise<unknown>) {
  try {
    await work()
  } catch (error) {
    if (!(error instanceof AppError)) throw error
  }
}

it('answers from the running totals what counting every row answers, at any time', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(op, { minLength: 5, maxLength: 30 }),
      fc.array(fc.integer({ min: -2 * DAY, max: 2 * DAY }), { minLength: 1, maxLength: 25 }),
      async (ops, offsets) => {
        // A fresh pair of workspaces each run: steps in one must change nothing in the other.
        const pair = [await newAccount(), await newAccount()]
        const who: Actor[] = pair.map((a) => ({
          userId: a.userId,
          workspaceId: a.workspaceId,
          role: 'owner',
          person: { name: 'property', email: a.email },
          scopes: ['read', 'write'],
          by: { kind: 'key', name: 'property' },
        }))
        let clock = Date.now()
        const at = (now: number): Services => ({ ...realServices(), now: () => now })
        const ids: string[][] = [[], []]
        const links: { ws: number; canvasId: string; token: string }[] = []
        const pick = (w: number, i: number) => (ids[w].length ? ids[w][i % ids[w].length] : null)

        const content = async (w: number, n: number, site: boolean) => {
          const svc = at(clock)
          const store = (text: string) =>
            storeDirect(svc, who[w], bytesOf(text).buffer as ArrayBuffer, 'text/plain')
          if (!site) return { file_id: (await store(CONTENTS[n])).file_id, ext: 'txt' }
          const paths = ['index.txt', 'a/b.txt', 'c.txt']
          const items = []
          for (const [i, path] of paths.entries()) {
            items.push({
              path,
              file_id: (await store(CONTENTS[(n + i) % CONTENTS.length])).file_id,
            })
          }
          return { items }
        }

        let step = 0
        for (const o of [...START, ...ops]) {
          const svc = at(clock)
          if (o.kind === 'publish') {
            await refusable(async () => {
              const body = await content(o.ws, o.content, o.site)
              const made = await createCanvas(svc, who[o.ws], {
                ...body,
                title: 'usage',
                permanent: o.permanent,
              })
              ids[o.ws].push(made.canvas_id)
            })
          } else if (o.kind === 'version') {
            const id = pick(o.ws, o.canvas)
            if (id) {
              await refusable(async () =>
                updateCanvas(svc, who[o.ws], id, await content(o.ws, o.content, o.site)),
              )
            }
          } else if (o.kind === 'delete') {
            const id = pick(o.ws, o.canvas)
            if (id) await refusable(() => deleteCanvas(svc, who[o.ws], id))
          } else if (o.kind === 'visibility') {
            const id = pick(o.ws, o.canvas)
            const visibility = o.public ? 'public' : 'private'
            if (id) await refusable(() => updateCanvas(svc, who[o.ws], id, { visibility }))
          } else if (o.kind === 'permanent') {
            const id = pick(o.ws, o.canvas)
            if (id) await refusable(() => makePermanent(svc, who[o.ws], id))
          } else if (o.kind === 'expire') {
            // Another writer, straight to the table: the triggers see every writer alike.
            const id = pick(o.ws, o.canvas)
            if (id) {
              await env.DB.prepare('UPDATE canvases SET expires_at = ? WHERE canvas_id = ?')
                .bind(clock - 1, id)
                .run()
            }
          } else if (o.kind === 'remove') {
            // A canvas deleted outright: its versions go by the cascade, its links stay unnamed.
            const id = pick(o.ws, o.canvas)
            if (id) await env.DB.prepare('DELETE FROM canvases WHERE canvas_id = ?').bind(id).run()
          } else if (o.kind === 'share') {
            const id = pick(o.ws, o.canvas)
            if (id) {
              await refusable(async () => {
                const share = await createShare(svc, who[o.ws], id, {
                  expires_in: o.hours === null ? undefined : o.hours * 3600,
                  max_views: o.views ?? undefined,
                })
                links.push({ ws: o.ws, canvasId: id, token: share.token })
              })
            }
          } else if (o.kind === 'view') {
            const link = links[o.link % Math.max(1, links.length)]
            if (link) await refusable(() => openShareContent(svc, { token: link.token }))
          } else if (o.kind === 'revoke') {
            const link = links[o.link % Math.max(1, links.length)]
            if (link) {
              await refusable(() => revokeShare(svc, who[link.ws], link.canvasId, link.token))
            }
          } else if (o.kind === 'revokeAll') {
            const id = pick(o.ws, o.canvas)
            if (id) await refusable(() => revokeShares(svc, who[o.ws], id))
          } else if (o.kind === 'upload') {
            // A presigned upload left pending, or finalized: only ready files count.
            await refusable(async () => {
              const bytes = bytesOf(`${CONTENTS[o.content]} uploaded`)
              const meta = await metaOf(bytes)
              await presignUpload(svc, who[o.ws], meta, TARGET)
              if (!o.finalize) return
              await env.BUCKET.put(blobKey(who[o.ws].workspaceId, meta.sha256), bytes)
              await finalizeUpload(svc, who[o.ws], meta)
            })
          } else if (o.kind === 'sweep') {
            await sweep(svc, { now: clock, batchSize: o.batch ?? undefined })
          } else {
            clock += STEPS[o.step]
          }

          const offset = offsets[step++ % offsets.length]
          const instants = [clock, clock + offset, clock - HOUR, clock - DAY]
          // Every workspace at every instant: the totals one by one, as the route asks; the
          // recounts in one batch.
          const checks = who.flatMap((actor) => instants.map((now) => ({ now, actor })))
          const [answers, counted] = await Promise.all([
            Promise.all(checks.map(({ now, actor }) => workspaceUsage(at(now), actor))),
            recountUsages(realServices().db, checks),
          ])
          for (const [i, { limits, ...totals }] of answers.entries()) {
            expect(limits.temp_canvas_ttl).toBe(readSettings(env).tempCanvasTtl)
            expect(totals, `${o.kind} at ${checks[i].now - clock} ms`).toEqual(counted[i])
          }
        }
      },
    ),
    { numRuns: runs(25) },
  )
}, 600_000)
