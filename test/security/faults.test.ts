import { env } from 'cloudflare:test'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { errorText } from '../../src/lib/log'
import { readSettings } from '../../src/lib/settings'
import { sweep } from '../../src/domain/sweep'
import { blobKey } from '../../src/storage/blobs'
import {
  bytesOf,
  call,
  json,
  newAccount,
  newCanvas,
  presignAndPut,
  sha256,
  upload,
  type Account,
  REQUEST_ID,
} from '../support/api'
import { faultsFor, faultyBindings, type Fault } from '../support/faults'
import { expectIntact, expectTidy, visibleState } from '../support/integrity'
import { sampled, stride } from '../support/runs'
import { sweepUntilDone } from '../support/state'
import { database } from '../../src/storage/db'

// Each step of finalize, create, update, delete and the sweep is made to fail, before it reaches
// D1 or R2 and after (the answer lost). Whatever fails, the workspace is left as it was or as the
// operation would have left it, its promises hold, and the next sweep tidies what was left over.

type Bindings = ReturnType<typeof faultyBindings>['bindings']
type Prepared = {
  account: Account
  run: (bindings: Bindings) => Promise<Response>
  /** What a client does next after the failure, with nothing failing: it must work. */
  retry?: (where: string) => Promise<void>
}
type Scenario = { name: string; setup: () => Promise<Prepared> }

// Each injected fault is an internal error the Worker logs; the log is checked in secrets.test.ts.
beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
})
afterEach(() => {
  vi.restoreAllMocks()
})

const HOUR = 3600_000
const later = () => Date.now() + 48 * HOUR
const settings = readSettings(env)
const sweepAt = (now: number, bindings: { DB: D1Database; BUCKET: R2Bucket }) =>
  sweep({ db: database(bindings.DB), bucket: bindings.BUCKET, settings, now: Date.now }, { now })

/** Sweeps at a time past every grace period, without faults, until it is done. */
const tidyUp = () => sweepUntilDone(later())

const form = (fields: Record<string, string>, text: string) => {
  const data = new FormData()
  data.append('file', new Blob([text]), 'upload.txt')
  for (const [k, v] of Object.entries(fields)) data.append(k, v)
  return data
}

/** A PATCH of a permanent canvas; `request` makes its body, with whatever it needs uploaded. */
function update(
  name: string,
  request: (key: string) => Promise<{ json?: unknown; body?: FormData }>,
): Scenario {
  return {
    name,
    async setup() {
      const account = await newAccount()
      const canvas = await newCanvas(account.key, 'first', { permanent: true })
      const init = await request(account.key)
      return {
        account,
        run: (env) =>
          call(`/v1/canvases/${canvas.canvas_id}`, {
            method: 'PATCH',
            key: account.key,
            ...init,
            env,
          }),
      }
    },
  }
}

/** The items of a three-file site, uploaded; two share their bytes. */
async function siteItems(key: string, word: string) {
  const index = await upload(key, bytesOf(`${word} page`), 'html', 'text/html')
  const data = await upload(key, bytesOf(`${word} data`))
  return [
    { path: 'index.html', file_id: index },
    { path: 'data/a.txt', file_id: data },
    { path: 'data/b.txt', file_id: data },
  ]
}

const scenarios: Scenario[] = [
  {
    name: 'finalize',
    async setup() {
      const account = await newAccount()
      const { meta, presign } = await presignAndPut(account.key, bytesOf('finalized under fire'))
      const finalize = (env?: Bindings) =>
        call('/v1/upload/finalize', { method: 'POST', key: account.key, json: meta, env })
      return {
        account,
        run: finalize,
        // The upload survived: finalizing again gives the file its presign promised.
        async retry(where) {
          const res = await finalize()
          expect(res.status, where).toBe(200)
          expect((await json(res)).file, where).toEqual({
            file_id: presign.file_id,
            sha256: meta.sha256,
            size: meta.size,
            mime: meta.mime,
          })
          await expectIntact(account.workspaceId, `${where}, retried`)
        },
      }
    },
  },
  {
    name: 'create (file_id)',
    async setup() {
      const account = await newAccount()
      const fileId = await upload(account.key, bytesOf('created under fire'))
      const json = { file_id: fileId, title: 'new', ext: 'txt', permanent: true }
      return {
        account,
        run: (env) => call('/v1/canvases', { method: 'POST', key: account.key, json, env }),
      }
    },
  },
  {
    name: 'create (multipart)',
    async setup() {
      const account = await newAccount()
      return {
        account,
        run: (env) =>
          call('/v1/canvases', {
            method: 'POST',
            key: account.key,
            body: form({ permanent: 'true', title: 'new' }, 'uploaded under fire'),
            env,
          }),
      }
    },
  },
  {
    name: 'create (site)',
    async setup() {
      const account = await newAccount()
      const json = { title: 'site', items: await siteItems(account.key, 'new'), permanent: true }
      return {
        account,
        run: (env) => call('/v1/canvases', { method: 'POST', key: account.key, json, env }),
      }
    },
  },
  update('update (site)', async (key) => ({ json: { items: await siteItems(key, 'second') } })),
  update('update (file_id)', async (key) => ({
    json: { file_id: await upload(key, bytesOf('second')), title: 'renamed' },
  })),
  update('update (multipart)', async () => ({
    body: form({ visibility: 'public' }, 'second, uploaded'),
  })),
  {
    name: 'delete',
    async setup() {
      const account = await newAccount()
      const canvas = await newCanvas(account.key, 'doomed', { permanent: true })
      await call(`/v1/canvases/${canvas.canvas_id}/shares`, { method: 'POST', key: account.key })
      await newCanvas(account.key, 'bystander', { permanent: true, title: 'stays' })
      return {
        account,
        run: (env) =>
          call(`/v1/canvases/${canvas.canvas_id}`, { method: 'DELETE', key: account.key, env }),
      }
    },
  },
]

describe.each(scenarios)('$name', ({ setup }) => {
  it('leaves the old state or the new one after a failure at any step', async () => {
    const dry = await setup()
    await call('/v1/me', { key: dry.account.key }) // last_used_at is fresh: no write after the response
    const counting = faultyBindings(null)
    const ok = await dry.run(counting.bindings)
    expect(ok.status, await ok.clone().text()).toBeLessThan(300)
    const after = await visibleState(dry.account.workspaceId)
    const faults = faultsFor(counting.state.operations)
    expect(faults.length).toBeGreaterThan(0)

    // Every fault, or a share of them when PROPERTY_SCALE asks (npm run test:fast).
    for (const fault of sampled(faults)) {
      const { account, run, retry } = await setup()
      await call('/v1/me', { key: account.key })
      const where = `${fault.when} step ${fault.at} of ${counting.state.log.join(', ')}`
      const before = await visibleState(account.workspaceId)
      const faulty = faultyBindings(fault)
      const res = await run(faulty.bindings)
      expect(faulty.state.tripped, where).not.toBeNull()
      expect(res.status, where).toBe(500)
      expect(await json(res), where).toEqual({
        error: { code: 'internal_error', message: 'internal error', request_id: REQUEST_ID },
      })
      const state = await visibleState(account.workspaceId)
      expect([JSON.stringify(before), JSON.stringify(after)], where).toContain(
        JSON.stringify(state),
      )
      await expectIntact(account.workspaceId, where)
      await retry?.(where)
      await tidyUp()
      await expectIntact(account.workspaceId, `${where}, then swept`)
      await expectTidy(account.workspaceId, `${where}, then swept`)
      expect(await visibleState(account.workspaceId), `${where}, then swept`).toEqual(state)
    }
  }, 300_000)
})

describe('the sweep', () => {
  /** Expired and permanent canvases, an unreferenced file, an object nothing knows. */
  async function mess() {
    const account = await newAccount()
    await newCanvas(account.key, 'expires', { title: 'temporary' })
    await newCanvas(account.key, 'expires too', { title: 'temporary 2' })
    await newCanvas(account.key, 'stays', { permanent: true, title: 'kept' })
    // A temporary site whose files the permanent canvas shares in part.
    const items = await siteItems(account.key, 'stays')
    await call('/v1/canvases', { method: 'POST', key: account.key, json: { title: 'site', items } })
    await upload(account.key, bytesOf('finalized, never used'))
    const orphan = bytesOf(`orphan ${crypto.randomUUID()}`)
    await env.BUCKET.put(blobKey(account.workspaceId, await sha256(orphan)), orphan)
    return account
  }

  it('keeps every promise when any of its steps fails, and the next run finishes the job', async () => {
    await tidyUp()
    // Every step, or every `step`-th when PROPERTY_SCALE asks (npm run test:fast), until the sweep
    // finishes before the step: then it has been tried at all the steps it takes.
    const { first, step } = stride()
    let tested = 0
    let steps = 0
    for (let at = first + 1; steps === 0; at += step) {
      for (const when of ['before', 'after'] as const) {
        const account = await mess()
        const fault: Fault = { at, when }
        const faulty = faultyBindings(fault)
        const failure = await sweepAt(later(), faulty.bindings).then(
          () => null,
          (err: unknown) => err,
        )
        const where = `sweep, ${when} step ${at} (${faulty.state.log.at(-1)})`
        if (faulty.state.tripped === null) {
          // The sweep finished before reaching step `at`: every step has been tried.
          expect(failure, where).toBeNull()
          await expectTidy(account.workspaceId, where)
          steps = faulty.state.operations
          continue
        }
        tested++
        // As the log tells it (lib/log.ts): the fault itself, not the query it failed.
        expect(errorText(failure), where).toContain('injected fault')
        await expectIntact(account.workspaceId, where)
        await tidyUp()
        await expectIntact(account.workspaceId, `${where}, then swept`)
        await expectTidy(account.workspaceId, `${where}, then swept`)
        const left = await visibleState(account.workspaceId)
        expect(
          left.map((c) => c.title),
          where,
        ).toEqual(['kept'])
      }
    }
    // A sweep of this much takes more than a few steps, each tried before and after.
    expect(steps).toBeGreaterThan(5)
    const tried = Math.max(0, Math.ceil((steps - first) / step))
    expect(tested).toBe(2 * tried)
  }, 300_000)
})
