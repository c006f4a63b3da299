import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { svc } from './support/cli'
import { file, key, loggedIn, server, useCliAccount, work } from './support/cli-account'

// Pushing the same path again (docs/cli.md#pushing-again): a new version of the canvas it was
// published as, said so; `--new` for another canvas; one gone since, a new canvas. And
// `--endpoint` on any command. The built dist/svc.mjs against a real `wrangler dev`.

useCliAccount('again')

const push = async (home: string, args: string[]) => {
  const res = await svc(home, ['push', ...args, '--json'])
  expect(res.code, res.stderr).toBe(0)
  return { canvas: JSON.parse(res.stdout), stderr: res.stderr }
}

describe('pushing a path again', () => {
  it('makes a new version of what it was published as; --new another canvas', async () => {
    const home = await loggedIn()
    const report = file('again.md', '# one')
    const first = await push(home, [report])
    expect(first.stderr).toBe('')
    writeFileSync(report, '# two')
    const second = await push(home, [report])
    expect(second.canvas).toMatchObject({ canvas_id: first.canvas.canvas_id, version: 2 })
    expect(second.stderr).toBe(
      `${report} was published as ${first.canvas.canvas_id}: a new version of it (--new: another canvas)\n`,
    )
    const other = await push(home, [report, '--new'])
    expect(other.canvas.canvas_id).not.toBe(first.canvas.canvas_id)
    expect(other.canvas.version).toBe(1)
    // From then on the path is the newer canvas's; --id names any.
    expect((await push(home, [report])).canvas).toMatchObject({
      canvas_id: other.canvas.canvas_id,
      version: 2,
    })
    const named = await push(home, [report, '--id', first.canvas.canvas_id])
    expect(named.canvas).toMatchObject({ canvas_id: first.canvas.canvas_id, version: 3 })
    expect(named.stderr).toBe('')
    const both = await svc(home, ['push', report, '--new', '--id', first.canvas.canvas_id])
    expect(both).toMatchObject({
      code: 2,
      stderr: 'error: --new and --id: one or the other (usage)\n',
    })
  })

  it("follows the workspace's default life unless --save or --temporary says", async () => {
    const home = await loggedIn()
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }
    const me = await (await fetch(`${server.url}/v1/me`, { headers })).json()
    const keep = (life: string | null) =>
      fetch(`${server.url}/v1/workspaces/${me.workspace.workspace_id}`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify({ default_expires_in: life }),
      })
    expect((await keep(null)).status).toBe(200)
    try {
      const kept = await push(home, [file('kept.md', '# kept'), '--new'])
      expect(kept.canvas.expires_at).toBeNull()
      const draft = await push(home, [file('draft.md', '# draft'), '--new', '--temporary'])
      const life = Date.parse(draft.canvas.expires_at) - Date.parse(draft.canvas.created_at)
      expect(life).toBe(24 * 3600_000)
      const both = await svc(home, ['push', file('both.md', 'x'), '--save', '--temporary'])
      expect(both).toMatchObject({
        code: 2,
        stderr: 'error: --save and --temporary: one or the other (usage)\n',
      })
    } finally {
      await keep('1d')
    }
  })

  it('makes a new canvas when the one it was published as is gone', async () => {
    const home = await loggedIn()
    const notes = file('gone.txt', 'soon gone')
    const first = await push(home, [notes])
    expect((await svc(home, ['delete', first.canvas.canvas_id, '--yes'])).code).toBe(0)
    const again = await push(home, [notes])
    expect(again.canvas.canvas_id).not.toBe(first.canvas.canvas_id)
    expect(again.stderr).toContain(`${first.canvas.canvas_id} is gone`)
    // And that one is remembered now.
    expect((await push(home, [notes])).canvas.canvas_id).toBe(again.canvas.canvas_id)
  })

  it('a folder too: the site gets a new version', async () => {
    const home = await loggedIn()
    const site = join(work, 'again-site')
    mkdirSync(site)
    writeFileSync(join(site, 'index.html'), '<p>one')
    const first = await push(home, [site])
    writeFileSync(join(site, 'index.html'), '<p>two')
    const second = await push(home, [site])
    expect(second.canvas).toMatchObject({ canvas_id: first.canvas.canvas_id, version: 2 })
  })
})

describe('--endpoint on any command', () => {
  it('list goes to the endpoint given, over the config and the environment', async () => {
    const home = await loggedIn()
    // The config names the right server; the environment a wrong one; the flag wins over both.
    const wrong = { CANVAS_ENDPOINT: 'http://127.0.0.1:9', CANVAS_API_KEY: key }
    const failing = await svc(home, ['list', '--json'], wrong)
    expect(failing.code).toBe(1)
    const res = await svc(home, ['list', '--json', '--endpoint', server.url], wrong)
    expect(res.code, res.stderr).toBe(0)
    expect(JSON.parse(res.stdout).canvases).toBeInstanceOf(Array)
  })
})
