import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { svc, watchPush } from './support/cli'
import { key, readKey, work, file, loggedIn, idOf, sha, useCliAccount } from './support/cli-account'

// Pushing, pulling and listing canvases, their life, and push --watch.
// The built dist/svc.mjs against a real `wrangler dev`, each test with its own HOME.

useCliAccount('canvases')

const RSS_REPORTER = fileURLToPath(new URL('../../scripts/rss-report.mjs', import.meta.url))

describe('push, pull, list', () => {
  it('push prints the id, version, expiry and view URL; --json adds view_url', async () => {
    const home = await loggedIn()
    const path = file('report.html', '<h1>Report</h1>')
    const res = await svc(home, ['push', path])
    expect(res.code, res.stderr).toBe(0)
    const [id, status, url] = res.stdout.trim().split('\n')
    expect(id).toMatch(/^[A-Za-z0-9]{20}$/)
    expect(status).toMatch(/^version 1 · expires in 24 h, at \d\d:\d\d tomorrow$/)
    expect(url).toBe(`https://canvas.example/c/${id}`)
    expect(res.stderr).toBe('')
    // Each a canvas of its own (pushed again, the path would make a new version).
    const saved = await svc(home, ['push', path, '--save', '--new'])
    expect(saved.stdout.split('\n')[1]).toBe('version 1 · does not expire')

    const json = await svc(home, [
      'push',
      path,
      '--new',
      '--json',
      '--save',
      '--public',
      '--title',
      'Named',
      '--renderer',
      'code',
    ])
    const canvas = JSON.parse(json.stdout)
    expect(canvas).toMatchObject({
      title: 'Named',
      ext: 'html',
      renderer_id: 'code',
      visibility: 'public',
      expires_at: null,
      version: 1,
      view_url: `https://canvas.example/c/${canvas.canvas_id}`,
    })
  })

  it('push says when the canvas expires on the local clock; --json keeps the ISO time', async () => {
    const home = await loggedIn()
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
      const res = await svc(home, ['push', file('clock.txt', zone), '--new'], { TZ: zone })
      expect(res.code, res.stderr).toBe(0)
      const [id, status] = res.stdout.split('\n')
      const listed = JSON.parse((await svc(home, ['list', '--limit', '100', '--json'])).stdout)
      const expires = listed.canvases.find((c: any) => c.canvas_id === id).expires_at
      expect(expires).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const clock = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(expires))
      // A day later is tomorrow, unless midnight passed between the push and its answer.
      expect(status, zone).toMatch(
        new RegExp(`^version 1 · expires in 24 h, at ${clock}( tomorrow)?$`),
      )
    }
  })

  it('push --id makes a new version; ext falls back to txt or bin', async () => {
    const home = await loggedIn()
    const id = idOf((await svc(home, ['push', file('notes.md', '# one')])).stdout)
    const second = await svc(home, ['push', file('notes2.md', '# two'), '--id', id])
    expect(second.stdout.split('\n')[1]).toMatch(/^version 2 · /)
    // A version of another type makes the canvas that type: HTML is shown as HTML.
    const page = JSON.parse(
      (await svc(home, ['push', file('page.html', '<h1>three</h1>'), '--id', id, '--json'])).stdout,
    )
    expect(page).toMatchObject({ version: 3, ext: 'html', renderer_id: 'html' })
    const text = JSON.parse(
      (await svc(home, ['push', file('README', 'plain words'), '--json'])).stdout,
    )
    expect(text).toMatchObject({ ext: 'txt', title: 'README', renderer_id: 'text' })
    const binary = JSON.parse(
      (await svc(home, ['push', file('blob', Buffer.from([0, 1, 2, 255])), '--json'])).stdout,
    )
    expect(binary).toMatchObject({ ext: 'bin', renderer_id: 'download' })
    const missing = await svc(home, ['push', join(work, 'nope.txt')])
    expect(missing).toMatchObject({
      code: 1,
      stderr: `error: no such file: ${join(work, 'nope.txt')} (file_not_found)\n`,
    })
    const readOnly = await svc(home, ['push', file('x.txt', 'x')], { CANVAS_API_KEY: readKey })
    expect(readOnly).toMatchObject({
      code: 1,
      stderr: "error: this API key lacks the 'write' scope (forbidden)\n",
    })
  })

  it('pull streams to stdout or a file, by version, and never overwrites without --force', async () => {
    const home = await loggedIn()
    const id = idOf((await svc(home, ['push', file('data.csv', 'a,b\n1,2\n')])).stdout)
    await svc(home, ['push', file('data2.csv', 'a,b\n3,4\n'), '--id', id])
    // To stdout, the content and nothing else.
    expect(await svc(home, ['pull', id])).toMatchObject({ stdout: 'a,b\n3,4\n', stderr: '' })
    expect((await svc(home, ['pull', id, '--version', '1'])).stdout).toBe('a,b\n1,2\n')
    // `-o -` is stdout too, never a file named "-".
    const dashDir = mkdtempSync(join(work, 'dash-'))
    expect((await svc(home, ['pull', id, '-o', '-'], {}, dashDir)).stdout).toBe('a,b\n3,4\n')
    expect(readdirSync(dashDir)).toEqual([])
    const out = join(work, 'pulled.csv')
    // To a file: what was written said on stderr, stdout left empty.
    expect(await svc(home, ['pull', id, '--output', out])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `wrote ${out} (8 B, version 2)\n`,
    })
    expect(readFileSync(out, 'utf8')).toBe('a,b\n3,4\n')
    const again = await svc(home, ['pull', id, '-o', out, '--version', '1'])
    expect(again).toMatchObject({
      code: 1,
      stderr: `error: ${out} exists; pass --force to overwrite it (file_exists)\n`,
    })
    expect(await svc(home, ['pull', id, '-o', out, '--version', '1', '--force'])).toMatchObject({
      code: 0,
      stderr: `wrote ${out} (8 B, version 1)\n`,
    })
    expect(readFileSync(out, 'utf8')).toBe('a,b\n1,2\n')
    const quiet = await svc(home, ['pull', id, '-o', out, '--force', '--json'])
    expect(quiet.stderr).toBe('')
    expect(JSON.parse(quiet.stdout)).toStrictEqual({ canvas_id: id, version: 2, path: out })
    const unknown = await svc(home, ['pull', 'nosuchcanvas'])
    expect(unknown).toMatchObject({
      code: 1,
      stderr: 'error: canvas not found (canvas_not_found)\n',
    })
    const noVersion = await svc(home, ['pull', id, '--version', '9'])
    expect(noVersion).toMatchObject({
      code: 1,
      stderr: 'error: version: canvas has no version 9 (version_not_found)\n',
    })
  })

  it('a 20 MB file round-trips byte for byte', async () => {
    const home = await loggedIn()
    const data = randomBytes(20 * 1024 * 1024)
    const id = idOf((await svc(home, ['push', file('big.bin', data)])).stdout)
    const out = join(work, 'big.out')
    const res = await svc(home, ['pull', id, '-o', out])
    expect(res.code, res.stderr).toBe(0)
    expect(sha(readFileSync(out))).toBe(sha(data))
  })

  it('push and pull hold a few chunks of a file in memory, not a GC cycle of them', async () => {
    // Fresh 64 KiB buffers per chunk used to pile up to V8's 32 MiB young-generation threshold
    // before a GC freed them: peak RSS beside a command that moves no file rose by ~40 MiB.
    const home = await loggedIn()
    const data = file('rss.bin', randomBytes(64 * 1024 * 1024))
    const peakMiB = async (name: string, args: string[]) => {
      const report = join(work, `rss-${name}`)
      const res = await svc(home, args, {
        NODE_OPTIONS: `--import ${RSS_REPORTER}`,
        RSS_REPORT: report,
      })
      expect(res.code, res.stderr).toBe(0)
      return { res, mib: Number(readFileSync(report, 'utf8')) / 1024 }
    }
    const idle = await peakMiB('whoami', ['whoami'])
    const push = await peakMiB('push', ['push', data])
    const pull = await peakMiB('pull', ['pull', idOf(push.res.stdout), '-o', join(work, 'rss.out')])
    // Streaming means well under half the file; the figures themselves are in BENCHMARKS.md.
    expect(push.mib - idle.mib).toBeLessThan(32)
    expect(pull.mib - idle.mib).toBeLessThan(32)
  })

  it('list shows a table, filters by type, limits, and prints JSON', async () => {
    const home = await loggedIn()
    const a = idOf((await svc(home, ['push', file('one.txt', 'one'), '--title', 'First'])).stdout)
    const b = idOf((await svc(home, ['push', file('two.md', 'two'), '--title', 'Second'])).stdout)
    const table = (await svc(home, ['list'])).stdout.split('\n')
    expect(table[0]).toMatch(/^ID\s+TITLE\s+AUTHOR\s+TYPE\s+VERSION\s+SIZE\s+VISIBILITY\s+EXPIRY$/)
    expect(table[1]).toMatch(
      new RegExp(`^${b}\\s+Second\\s+cli\\s+md\\s+v1\\s+3 B\\s+private\\s+in 24 h$`),
    )
    // Only what the key's person published, or another member's by email: none here.
    const mine = JSON.parse((await svc(home, ['list', '--author', 'me', '--json'])).stdout)
    expect(mine.canvases.map((c: any) => c.canvas_id)).toContain(b)
    const theirs = await svc(home, ['list', '--author', 'nobody@example.com', '--json'])
    expect(JSON.parse(theirs.stdout).canvases).toEqual([])
    const md = JSON.parse((await svc(home, ['list', '--type', 'md', '--json'])).stdout)
    expect(md.canvases.every((c: any) => c.ext === 'md')).toBe(true)
    expect(md.canvases.some((c: any) => c.canvas_id === a)).toBe(false)
    const one = JSON.parse((await svc(home, ['list', '--limit', '1', '--json'])).stdout)
    expect(one.canvases).toHaveLength(1)
    expect(one.limit).toBe(1)
    // The next page by the cursor the first printed, as a table says it too.
    const page = (await svc(home, ['list', '--limit', '1'])).stdout
    expect(page).toContain(`more: svc list --cursor ${one.next_cursor}`)
    const next = JSON.parse(
      (await svc(home, ['list', '--limit', '1', '--cursor', one.next_cursor, '--json'])).stdout,
    )
    expect(next.canvases.map((c: any) => c.canvas_id)).toEqual([a])
    const forged = await svc(home, ['list', '--cursor', 'forged'])
    expect(forged.stderr).toBe('error: cursor: is not a cursor this API gave (invalid_request)\n')
  })

  it('search finds by words of the text, with snippets, pages and JSON', async () => {
    const home = await loggedIn()
    const tag = `kestrel${randomBytes(4).toString('hex')}`
    const ids = []
    for (const n of [1, 2, 3]) {
      const text = `# Survey ${n}\n\nThe ${tag} nests by the \u001b[31mriver.`
      ids.push(idOf((await svc(home, ['push', file(`s${n}.md`, text), '--new'])).stdout))
    }
    // Words typed apart are one query; every word must be there.
    const found = await svc(home, ['search', tag, 'nests', '--limit', '2'])
    expect(found.code, found.stderr).toBe(0)
    const lines = found.stdout.split('\n')
    expect(lines[0]).toMatch(/^s\d\.md  md · v1 · (just now|\d+ (s|min) ago) · by cli$/)
    // No control character reaches the terminal: the index keeps none.
    expect(lines[2]).toContain(`The ${tag} nests by the [31mriver.`)
    expect(found.stdout).not.toContain('\u001b[31m')
    expect(found.stdout).toMatch(new RegExp(`more: svc search '${tag} nests' --cursor \\S+\\n$`))
    const json = JSON.parse((await svc(home, ['search', `"${tag} nests"`, '--json'])).stdout)
    expect(json.results.map((r: any) => r.canvas_id).sort()).toEqual([...ids].sort())
    expect(json.results[0]).toMatchObject({
      snippet: expect.stringContaining(tag),
      view_url: `https://canvas.example/c/${json.results[0].canvas_id}`,
    })
    expect((await svc(home, ['search', 'nowhere'])).stdout).toBe('no canvas holds those words\n')
    const bad = await svc(home, ['search', '"open'])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toBe('error: q: a quote is opened and never closed (invalid_request)\n')
  })
})

describe('versions, rollback, update, save, delete, view, usage', () => {
  it('manages a canvas through its life', async () => {
    const home = await loggedIn()
    const id = idOf((await svc(home, ['push', file('v.txt', 'one')])).stdout)
    await svc(home, ['push', file('v2.txt', 'two'), '--id', id])
    await svc(home, ['push', file('v3.txt', 'three'), '--id', id])
    const versions = (await svc(home, ['versions', id])).stdout.split('\n')
    expect(versions[0]).toMatch(/^VERSION\s+SIZE\s+CREATED\s+SHA256$/)
    expect(versions[1]).toMatch(/^3\s+5 B\s+(just now|\d min ago)\s+[0-9a-f]{12}$/)

    expect((await svc(home, ['rollback', id, '2'])).stdout).toBe(
      `${id} is now version 4 (the content of version 2)\n`,
    )
    expect((await svc(home, ['pull', id])).stdout).toBe('two')
    expect((await svc(home, ['rollback', id, '9'])).stderr).toBe(
      'error: version: canvas has no version 9 (version_not_found)\n',
    )

    expect(
      (await svc(home, ['update', id, '--title', 'Renamed', '--visibility', 'public'])).stdout,
    ).toBe(`${id} · Renamed · public · text\n`)
    expect((await svc(home, ['update', id])).stderr).toBe(
      'error: nothing to update: give --title, --visibility or --renderer (usage)\n',
    )
    expect((await svc(home, ['update', id, '--visibility', 'secret'])).stderr).toBe(
      "error: --visibility must be private or public, got 'secret' (usage)\n",
    )
    expect((await svc(home, ['save', id])).stdout).toBe(`${id} is permanent\n`)
    const list = JSON.parse((await svc(home, ['list', '--json'])).stdout)
    expect(list.canvases.find((c: any) => c.canvas_id === id).expires_at).toBeNull()

    // `true` stands in for the browser (test/node/cli-open.test.ts tests the opening itself).
    const view = await svc(home, ['view', id], { BROWSER: 'true' })
    expect(view).toMatchObject({ code: 0, stdout: `https://canvas.example/c/${id}\n`, stderr: '' })

    const usage = await svc(home, ['usage'])
    expect(usage.stdout).toMatch(/^canvases  \d+ \(\d+ permanent, \d+ temporary; \d+ public\)\n/)
    expect(
      JSON.parse((await svc(home, ['usage', '--json'])).stdout).canvases.total,
    ).toBeGreaterThan(0)

    // Without a terminal to ask on, nothing is deleted unless --yes says so.
    expect(await svc(home, ['delete', id])).toMatchObject({
      code: 2,
      stderr: 'error: refusing to delete without confirmation: give --yes (usage)\n',
    })
    expect((await svc(home, ['delete', id, '--yes'])).stdout).toBe(`deleted ${id}\n`)
    expect((await svc(home, ['delete', id, '-y'])).stderr).toBe(
      'error: canvas not found (canvas_not_found)\n',
    )
  })
})

describe('push --watch', () => {
  it('pushes a new version for each change, none for a save that changed nothing', async () => {
    const home = await loggedIn()
    const dir = mkdtempSync(join(work, 'watch-'))
    const path = join(dir, 'live.md')
    writeFileSync(path, '# one')
    const { child, lines, until, stderr } = watchPush(path, { HOME: home })
    try {
      await until(() => lines.length === 1 && stderr().includes('watching'), 'the first push')
      const id = lines[0].canvas_id
      writeFileSync(path, '# two')
      await until(() => lines.length === 2, 'version 2')
      // The same bytes saved again: no version. (An editor's save is a rename over the file.)
      writeFileSync(join(dir, 'live.md.tmp'), '# two')
      renameSync(join(dir, 'live.md.tmp'), path)
      await until(() => stderr().includes('no change in its content'), 'the unchanged save')
      expect(lines).toHaveLength(2)
      writeFileSync(join(dir, 'live.md.tmp'), '# three')
      renameSync(join(dir, 'live.md.tmp'), path)
      await until(() => lines.length === 3, 'version 3')
      expect(lines.map((l) => [l.canvas_id, l.version])).toEqual([
        [id, 1],
        [id, 2],
        [id, 3],
      ])
      const exited = new Promise((resolve) => child.on('close', resolve))
      child.kill('SIGINT')
      expect(await exited).toBe(0)
      const versions = JSON.parse((await svc(home, ['versions', id, '--json'])).stdout)
      expect(versions.versions.map((v: any) => v.version)).toEqual([3, 2, 1])
      const pulled = await svc(home, ['pull', id, '--version', '2'])
      expect(pulled.stdout).toBe('# two')
    } finally {
      child.kill('SIGKILL')
    }
  })
})
