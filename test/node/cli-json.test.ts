import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SVC, svc } from './support/cli'
import {
  server,
  key,
  work,
  newHome,
  file,
  loggedIn,
  idOf,
  spareKey,
  useCliAccount,
} from './support/cli-account'

// --json output for scripts and agents, and an agent session that uses nothing else.
// The built dist/svc.mjs against a real `wrangler dev`, each test with its own HOME.

useCliAccount('json')

describe('--json, for scripts and agents', () => {
  // One shape per resource, whichever command prints it.
  const CANVAS = {
    canvas_id: expect.stringMatching(/^[A-Za-z0-9]+$/),
    owner_user_id: expect.any(String),
    author: { user_id: expect.any(String), name: expect.any(String) },
    title: expect.any(String),
    ext: expect.any(String),
    renderer_id: expect.any(String),
    visibility: expect.stringMatching(/^(private|public)$/),
    version: expect.any(Number),
    size: expect.any(Number),
    created_at: expect.any(String),
    updated_at: expect.any(String),
    expires_at: expect.toBeOneOf([null, expect.any(String)]),
    approved_version: expect.toBeOneOf([null, expect.any(Number)]),
    view_url: expect.stringMatching(/^https:\/\/canvas\.example\/c\/[A-Za-z0-9]+$/),
  }
  const SHARE = {
    token: expect.any(String),
    canvas_id: expect.any(String),
    expires_at: expect.toBeOneOf([null, expect.any(String)]),
    view_count: expect.any(Number),
    max_views: expect.toBeOneOf([null, expect.any(Number)]),
    version: expect.toBeOneOf([null, expect.any(Number)]),
    follow: expect.stringMatching(/^(latest|version|approved)$/),
    has_password: expect.any(Boolean),
    allow_comments: expect.any(Boolean),
    created_at: expect.any(String),
    url: expect.stringMatching(/^https:\/\/canvas\.example\/s\/[A-Za-z0-9]{22}$/),
  }

  it('every command prints one JSON document, and errors as JSON on stderr', async () => {
    // Its own key: logging out revokes it.
    const ownKey = await spareKey()
    const home = await loggedIn(ownKey)
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const res = await svc(home, [...args, '--json'], env)
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0)
      return JSON.parse(res.stdout)
    }
    const pushed = await run(['push', file('json.txt', 'one')])
    expect(pushed).toStrictEqual(CANVAS)
    const id = pushed.canvas_id
    expect(await run(['push', file('json.txt', 'two'), '--id', id])).toStrictEqual({
      ...CANVAS,
      version: 2,
    })
    const list = await run(['list'])
    expect(list).toStrictEqual({
      canvases: expect.any(Array),
      limit: 20,
      offset: 0,
      next_cursor: null,
    })
    for (const canvas of list.canvases) expect(canvas).toStrictEqual(CANVAS)
    expect(await run(['update', id, '--title', 'Renamed'])).toStrictEqual({
      ...CANVAS,
      title: 'Renamed',
    })
    expect(await run(['save', id])).toStrictEqual({ ...CANVAS, expires_at: null })
    expect(await run(['rollback', id, '1'])).toStrictEqual({ ...CANVAS, version: 3 })
    expect(await run(['versions', id])).toStrictEqual({
      versions: [3, 2, 1].map((version) => ({
        version,
        size: 3,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_at: expect.any(String),
        items: 1,
      })),
    })
    const once = await svc(home, ['share', id, '--max-views', '1'])
    expect(once.stderr).toMatch(/ · at most 1 view\n$/)
    const share = await run(['share', id, '--password', 'hunter22', '--max-views', '1'])
    expect(share).toStrictEqual({ ...SHARE, max_views: 1, has_password: true })
    const out = join(mkdtempSync(join(work, 'json-')), 'pulled.txt')
    expect(await run(['pull', id, '-o', out])).toStrictEqual({
      canvas_id: id,
      version: 3,
      path: out,
    })
    expect(readFileSync(out, 'utf8')).toBe('one')
    const config = join(home, '.svc/config.json')
    const fromConfig = { from: 'config', name: config }
    const status = {
      user: { user_id: expect.any(String), email: 'cli@json.example' },
      workspace: { workspace_id: expect.any(String), name: 'cli', role: 'owner' },
      key: { key_id: expect.any(String), name: 'cli', scopes: ['read', 'write'] },
      endpoint: server.url,
      web_url: 'https://canvas.example',
      api_key: `${ownKey.slice(0, 8)}…${ownKey.slice(-4)}`,
      config,
      sources: { endpoint: fromConfig, web_url: fromConfig, api_key: fromConfig },
      error: null,
    }
    expect(await run(['whoami'])).toStrictEqual(status)
    expect(await run(['status'])).toStrictEqual(status)
    expect(await run(['usage'])).toMatchObject({ canvases: { total: expect.any(Number) } })
    for (const command of ['open', 'view']) {
      expect(await run([command, id], { BROWSER: 'true' })).toStrictEqual({
        canvas_id: id,
        view_url: `https://canvas.example/c/${id}`,
        opened: true,
      })
    }
    expect(await run(['config', 'show'])).toStrictEqual({
      config: join(home, '.svc/config.json'),
      endpoint: server.url,
      web_url: 'https://canvas.example',
      api_key: `${ownKey.slice(0, 8)}…${ownKey.slice(-4)}`,
    })
    expect(await run(['config', 'set', 'web_url', 'https://canvas.example'])).toStrictEqual({
      web_url: 'https://canvas.example',
    })
    expect(await run(['unshare', id, '--yes'])).toStrictEqual({ canvas_id: id, revoked: 2 })
    expect(await run(['delete', id, '--yes'])).toStrictEqual({ canvas_id: id, deleted: true })
    // A key given with --token is svc's to end only when asked.
    expect(await run(['logout', '--revoke'])).toStrictEqual({ logged_out: true, revoked: true })
    expect(await run(['logout'])).toStrictEqual({ logged_out: false, revoked: false })

    // Failures: one JSON error on stderr, nothing on stdout, the exit code of its kind.
    // (status and whoami report even then: test 'status and whoami' below.)
    const missing = await svc(home, ['list', '--json'])
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe('')
    expect(JSON.parse(missing.stderr)).toEqual({
      error: {
        code: 'unauthorized',
        message: 'not logged in: run `svc login` or set CANVAS_API_KEY',
      },
    })
    const usage = await svc(home, ['--json', 'list', '--bogus'])
    expect(usage.code).toBe(2)
    expect(JSON.parse(usage.stderr)).toEqual({
      error: { code: 'usage', message: "unknown option '--bogus'; see --help" },
    })
  })

  it('shares lists the links of a canvas; unshare --token revokes one; renderers lists renderers', async () => {
    const home = await loggedIn()
    const id = idOf((await svc(home, ['push', file('links.txt', 'links')])).stdout)
    const first = JSON.parse((await svc(home, ['share', id, '--json'])).stdout)
    const second = JSON.parse(
      (await svc(home, ['share', id, '--json', '--password', 'hunter22', '--max-views', '3']))
        .stdout,
    )
    const listed = JSON.parse((await svc(home, ['shares', id, '--json'])).stdout)
    expect(listed.shares.map((s: any) => s.token).sort()).toEqual(
      [first.token, second.token].sort(),
    )
    for (const share of listed.shares) expect(share).toStrictEqual(SHARE)
    const table = await svc(home, ['shares', id])
    expect(table.stdout.split('\n')[0]).toMatch(
      /^URL +EXPIRES +VIEWS +MAX VIEWS +VERSION +PASSWORD +COMMENTS$/,
    )
    expect(table.stdout).toContain(`https://canvas.example/s/${second.token}`)
    // No expiry of its own: it ends with the temporary canvas, and says so.
    expect(table.stdout).toMatch(
      new RegExp(`${second.token} +in 24 h \\(canvas\\) +0 +3 +latest +yes +no$`, 'm'),
    )

    const one = await svc(home, ['unshare', id, '--token', second.url, '--json'])
    expect(JSON.parse(one.stdout)).toStrictEqual({ canvas_id: id, revoked: 1 })
    const left = JSON.parse((await svc(home, ['shares', id, '--json'])).stdout)
    expect(left.shares.map((s: any) => s.token)).toEqual([first.token])
    expect(await svc(home, ['unshare', id, '--token', 'no way'])).toMatchObject({
      code: 2,
      stderr: "error: --token must be a share token or link, got 'no way' (usage)\n",
    })
    expect((await svc(home, ['unshare', id, '--yes'])).stdout).toBe('revoked 1 link\n')
    expect((await svc(home, ['shares', id])).stdout).toBe('no share links\n')

    const renderers = JSON.parse((await svc(home, ['renderers', '--json'])).stdout)
    expect(renderers.renderers.map((r: any) => r.renderer_id)).toContain('markdown')
    expect((await svc(home, ['renderers'])).stdout).toMatch(/^ID +NAME +EXTENSIONS +SCRIPTS\n/)
    const badRenderer = await svc(home, ['update', id, '--renderer', 'nope'])
    expect(badRenderer).toMatchObject({
      code: 2,
      stderr: "error: --renderer: unknown renderer 'nope'; see svc renderers (usage)\n",
    })
  })

  it('pull refuses to print binary content on a terminal, but not text or -o -', async () => {
    const home = await loggedIn()
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])
    const binary = idOf((await svc(home, ['push', file('pixel.png', png)])).stdout)
    const text = idOf((await svc(home, ['push', file('note.txt', 'plain words')])).stdout)
    // `script` gives svc a terminal for stdout, as a person would have.
    const onTerminal = (args: string) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        const child = spawn('script', ['-qec', `node ${SVC} ${args}`, '/dev/null'], {
          env: { PATH: process.env.PATH ?? '', HOME: home, TERM: 'dumb' },
        })
        let out = ''
        child.stdout.on('data', (d) => (out += d))
        child.on('close', (code) => resolve({ code: code ?? 1, out }))
      })
    const refused = await onTerminal(`pull ${binary}`)
    expect(refused.code).toBe(2)
    expect(refused.out).toContain(
      'error: binary content (image/png): give -o <file>, or -o - to print it anyway (usage)',
    )
    const shown = await onTerminal(`pull ${text}`)
    expect([shown.code, shown.out]).toEqual([0, 'plain words'])
    expect((await onTerminal(`pull ${binary} -o -`)).code).toBe(0)
  })

  it('delete asks on a terminal: only yes deletes; no, Ctrl-C or Ctrl-D cancel with exit 1', async () => {
    const home = await loggedIn()
    const ask = (id: string, keys: string) => answerOnTerminal(home, `delete ${id}`, keys)
    const id = idOf((await svc(home, ['push', file('doomed.txt', 'doomed')])).stdout)
    for (const keys of ['n\r', '\x03', '\x04']) {
      const res = await ask(id, keys)
      expect(res.out, JSON.stringify(keys)).toContain(
        `Delete canvas ${id} and all its versions? [y/N]`,
      )
      expect(res.code, JSON.stringify(keys)).toBe(1)
      expect((await svc(home, ['versions', id])).code).toBe(0)
    }
    const yes = await ask(id, 'y\r')
    expect([yes.code, yes.out]).toEqual([0, expect.stringContaining(`deleted ${id}`)])
    expect((await svc(home, ['versions', id])).code).toBe(1)
  })

  it('unshare of every link asks as delete does; one link named by --token is not asked for', async () => {
    const home = await loggedIn()
    const id = idOf((await svc(home, ['push', file('revoked.txt', 'revoked')])).stdout)
    const links = async () =>
      JSON.parse((await svc(home, ['shares', id, '--json'])).stdout).shares.length
    const ask = (keys: string) => answerOnTerminal(home, `unshare ${id}`, keys)
    await svc(home, ['share', id])
    await svc(home, ['share', id])
    for (const keys of ['n\r', '\x03']) {
      const res = await ask(keys)
      expect(res.out, JSON.stringify(keys)).toContain(
        `Revoke every share link of canvas ${id}? [y/N]`,
      )
      expect(res.code, JSON.stringify(keys)).toBe(1)
      expect(await links()).toBe(2)
    }
    // A script without --yes: refused as a mistake in the command line, nothing revoked.
    expect(await svc(home, ['unshare', id])).toMatchObject({
      code: 2,
      stderr: 'error: refusing to revoke every link without confirmation: give --yes (usage)\n',
    })
    expect(await links()).toBe(2)
    const yes = await ask('y\r')
    expect([yes.code, yes.out]).toEqual([0, expect.stringContaining('revoked 2 links')])
    expect(await links()).toBe(0)
    const one = JSON.parse((await svc(home, ['share', id, '--json'])).stdout)
    await svc(home, ['share', id])
    expect(await svc(home, ['unshare', id, '--token', one.token])).toMatchObject({
      code: 0,
      stdout: 'revoked 1 link\n',
    })
    expect(await links()).toBe(1)
    expect((await svc(home, ['unshare', id, '--yes'])).stdout).toBe('revoked 1 link\n')
  })

  it('logout says so when nobody was logged in', async () => {
    const res = await svc(newHome(), ['logout'])
    expect(res).toMatchObject({ code: 0, stdout: 'not logged in: nothing to do\n' })
  })
})

describe('an agent session, --json only', () => {
  it('logs in, pushes, versions, shares, downloads anonymously, rolls back and deletes', async () => {
    const home = newHome()
    const anon = newHome()
    const dir = mkdtempSync(join(work, 'agent-'))
    const json = async (who: string, args: string[], env: Record<string, string> = {}) => {
      const res = await svc(who, [...args, '--json'], env)
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0)
      // Never a table: every answer parses as one JSON document.
      return JSON.parse(res.stdout)
    }
    const login = await json(home, ['login', '--token', key, '--endpoint', server.url])
    expect(login).toMatchObject({ endpoint: server.url, web_url: server.url })
    const report = join(dir, 'report.md')
    writeFileSync(report, '# Q3\n\nfirst draft')
    const created = await json(home, ['push', report])
    const id = created.canvas_id
    expect(created).toMatchObject({ version: 1, view_url: `${server.url}/c/${id}` })
    writeFileSync(report, '# Q3\n\nfinal')
    expect(await json(home, ['push', report, '--id', id])).toMatchObject({ version: 2 })
    const list = await json(home, ['list'])
    expect(list.canvases.find((c: any) => c.canvas_id === id)).toMatchObject({ version: 2 })
    const versions = await json(home, ['versions', id])
    expect(versions.versions.map((v: any) => v.version)).toEqual([2, 1])
    const share = await json(home, ['share', id, '--password', 'agent-pass'])
    expect(share.url).toBe(`${server.url}/s/${share.token}`)
    const info = await json(anon, ['download', share.url, '--info', '--password', 'agent-pass'])
    expect(info.canvas).toMatchObject({ title: 'report.md', version: 2 })
    const saved = join(dir, 'downloaded.md')
    expect(
      await json(anon, ['download', share.url, '-o', saved, '--password', 'agent-pass']),
    ).toEqual({ token: share.token, path: saved })
    expect(readFileSync(saved, 'utf8')).toBe('# Q3\n\nfinal')
    const rolled = await json(home, ['rollback', id, '1'])
    expect(rolled).toMatchObject({ canvas_id: id, version: 3 })
    const pulled = join(dir, 'pulled.md')
    await json(home, ['pull', id, '-o', pulled])
    expect(readFileSync(pulled, 'utf8')).toBe('# Q3\n\nfirst draft')
    expect(await json(home, ['delete', id, '--yes'])).toEqual({ canvas_id: id, deleted: true })
    const gone = await svc(home, ['versions', id, '--json'])
    expect(gone.code).toBe(1)
    expect(JSON.parse(gone.stderr)).toEqual({
      error: { code: 'canvas_not_found', message: 'canvas not found' },
    })
  })
})

/** Runs `svc <command>` on a terminal and types `keys` once it asks [y/N]. */
async function answerOnTerminal(home: string, command: string, keys: string) {
  const child = spawn('script', ['-qec', `node ${SVC} ${command}`, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', HOME: home, TERM: 'dumb' },
  })
  let out = ''
  child.stdout.on('data', (d) => {
    out += d
    if (out.includes('[y/N]') && keys) {
      child.stdin.write(keys)
      keys = ''
    }
  })
  const code = await new Promise((resolve) => child.on('close', resolve))
  return { code, out }
}
