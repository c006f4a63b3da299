import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SVC, svc, watchPush } from './support/cli'
import { freePort, newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'

// The built dist/svc.mjs against a real `wrangler dev`, each test with its own HOME.

let server: { url: string }
let key: string
let readKey: string
let work: string
const RSS_REPORTER = fileURLToPath(new URL('../../scripts/rss-report.mjs', import.meta.url))
const LOG_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[(DEBUG|INFO|WARN|ERROR)\] .+ \{.*\}$/

beforeAll(async () => {
  server = await sharedDevServer()
  const account = await newDevAccount(server.url, 'cli@example.com', ['read', 'write'])
  key = account.key
  readKey = await account.newKey(['read'])
  work = mkdtempSync(join(tmpdir(), 'canvas-cli-'))
}, SETUP_MS)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

const newHome = () => mkdtempSync(join(work, 'home-'))
const file = (name: string, content: string | Buffer) => {
  const path = join(work, name)
  writeFileSync(path, content)
  return path
}
/** A HOME that is logged in through `svc login`. */
async function loggedIn() {
  const home = newHome()
  const res = await svc(home, [
    'login',
    '--token',
    key,
    '--endpoint',
    server.url,
    '--web-url',
    'https://canvas.example',
  ])
  expect(res.code, res.stderr).toBe(0)
  return home
}
const idOf = (stdout: string) => stdout.split('\n')[0].trim()
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex')

describe('basics', () => {
  it('--version, --help, bad commands and flags', async () => {
    const home = newHome()
    const version = await svc(home, ['--version'])
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' })
    const help = await svc(home, ['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('push')
    expect(help.stdout).not.toMatch(/\x1b\[/)
    const pushHelp = await svc(home, ['push', '--help'])
    expect(pushHelp.stdout).toContain('--save')
    for (const [args, message] of [
      [['frobnicate'], "error: unknown command 'frobnicate'; see svc --help (usage)\n"],
      [['list', '--bogus'], "error: unknown option '--bogus'; see --help (usage)\n"],
      [['push'], 'error: Missing required positional argument: FILE (usage)\n'],
      [['list', '--limit', 'x'], 'error: --limit must be a positive whole number (usage)\n'],
      [['pussh', 'a.html'], "error: unknown command 'pussh': did you mean 'push'? (usage)\n"],
      [['--jsn', 'whoami'], "error: unknown option '--jsn': did you mean '--json'? (usage)\n"],
      [['--endpoint', 'x', 'whoami'], "error: unknown option '--endpoint'; see --help (usage)\n"],
      [['config', '--bogus'], "error: unknown option '--bogus'; see --help (usage)\n"],
      [
        ['list', '--limt', '3'],
        "error: unknown option '--limt': did you mean '--limit'? (usage)\n",
      ],
    ] as const) {
      const res = await svc(home, [...args])
      // A mistake in the command line exits 2, so a script can tell it from a failure.
      expect(res.code).toBe(2)
      expect(res.stderr).toBe(message)
    }
  })

  it('help pages carry examples; a group alone shows its help', async () => {
    const home = newHome()
    for (const command of [
      'push',
      'share',
      'delete',
      'shares',
      'comment',
      'renderers',
      'config set',
    ]) {
      const help = await svc(home, [...command.split(' '), '--help'])
      expect(help.code, command).toBe(0)
      expect(help.stdout, command).toMatch(new RegExp(`EXAMPLES\\n\\n  \\$ svc ${command}`))
    }
    const config = await svc(home, ['config'])
    expect(config.code).toBe(0)
    expect(config.stdout).toContain('show')
    expect(config.stdout).toContain('$ svc config show')
  })

  it('help text is written one way: every description a capitalised phrase', async () => {
    const commands =
      'login logout config status whoami usage push pull open list share shares unshare comments comment resolve view download versions rollback update save delete renderers'
    const home = newHome()
    const top = (await svc(home, ['--help'])).stdout
    for (const name of commands.split(' ')) {
      expect(top, name).toMatch(new RegExp(`^ +${name} +[A-Z]`, 'm'))
      const help = (await svc(home, [name, '--help'])).stdout
      const options = help.split('\nOPTIONS\n')[1]?.split('EXAMPLES')[0] ?? ''
      for (const line of options.split('\n').filter((l) => l.trim())) {
        expect(line, `${name}: ${line}`).toMatch(/^ +(-\w, )?\S+ {2,}[A-Z]/)
      }
    }
  })

  it('a failing system call is exit 1, not a usage mistake', async () => {
    const notADir = file('home-is-a-file', 'x')
    const res = await svc(notADir, ['config', 'set', 'endpoint', 'http://x.example'])
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/^error: ENOTDIR: .* \(io_error\)\n$/)
  })

  it('takes global flags before the command as well as after it', async () => {
    const env = { CANVAS_API_KEY: key, CANVAS_ENDPOINT: server.url }
    for (const args of [
      ['--debug', 'whoami'],
      ['whoami', '--debug'],
    ]) {
      const res = await svc(newHome(), args, env)
      expect(res.code, args.join(' ')).toBe(0)
      expect(res.stderr, args.join(' ')).toMatch(/\[INFO\] GET \/v1\/me \{"status":200/)
    }
    const help = await svc(newHome(), ['--help', 'push'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('--save')
  })

  it('commands that need a key say so', async () => {
    const res = await svc(newHome(), ['list'])
    expect(res).toMatchObject({
      code: 1,
      stderr: 'error: not logged in: run `svc login` or set CANVAS_API_KEY (unauthorized)\n',
    })
  })

  it('a network failure is one clear line', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`
    const res = await svc(newHome(), ['whoami'], { CANVAS_API_KEY: key, CANVAS_ENDPOINT: closed })
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(`error: cannot reach ${closed}: ECONNREFUSED (network_error)\n`)
  })
})

describe('login, logout and config', () => {
  it('login checks the key before saving; files are private', async () => {
    const home = newHome()
    const bad = await svc(home, [
      'login',
      '--token',
      'svc_' + 'x'.repeat(40),
      '--endpoint',
      server.url,
    ])
    expect(bad).toMatchObject({
      code: 1,
      stderr: `error: ${server.url} refused the key: invalid or revoked API key; nothing saved (unauthorized)\n`,
    })
    expect(existsSync(join(home, '.svc/config.json'))).toBe(false)
    const noTty = await svc(home, ['login', '--endpoint', server.url])
    expect(noTty).toMatchObject({
      code: 2,
      stderr: 'error: no --token given and no terminal to ask on (usage)\n',
    })

    const ok = await svc(home, [
      'login',
      '--token',
      key,
      '--endpoint',
      server.url + '/',
      '--web-url',
      'https://canvas.example',
    ])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toBe(`logged in as cli@example.com (workspace cli) at ${server.url}\n`)
    expect(statSync(join(home, '.svc')).mode & 0o777).toBe(0o700)
    expect(statSync(join(home, '.svc/config.json')).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8'))).toEqual({
      api_key: key,
      endpoint: server.url,
      web_url: 'https://canvas.example',
    })
    const show = await svc(home, ['config', 'show'])
    expect(show.stdout).toContain(`endpoint  ${server.url}`)
    expect(show.stdout).toContain('web_url   https://canvas.example')
    expect(show.stdout).toContain(`api_key   ${key.slice(0, 8)}…${key.slice(-4)}`)
    expect(show.stdout).not.toContain(key)

    expect((await svc(home, ['whoami'])).stdout).toContain('cli@example.com')
    // A variable that wins over what was just saved is named, else the next command surprises.
    const overridden = await svc(home, ['login', '--token', key, '--endpoint', server.url], {
      CANVAS_API_KEY: readKey,
    })
    expect(overridden).toMatchObject({
      code: 0,
      stderr: 'CANVAS_API_KEY is set: commands use it, not the key just saved\n',
    })
    const logout = await svc(home, ['logout'])
    expect(logout.stdout).toBe('logged out\n')
    expect(JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8')).api_key).toBeUndefined()
    expect((await svc(home, ['whoami'])).code).toBe(1)
  })

  /**
   * `svc login` on a pseudo-terminal (`script`), as a person typing would use it: each answer is
   * typed once its question shows after the one before, in the order given (null: text that shows,
   * not a question). `asked`: what showed, in order.
   */
  async function loginOnTerminal(home: string, answers: [string, string | null][]) {
    const child = spawn('script', ['-qec', `node ${SVC} login`, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TERM: 'dumb' },
    })
    let out = ''
    let from = 0
    const asked: string[] = []
    child.stdout.on('data', (d) => {
      out += d
      for (;;) {
        const next = answers[asked.length]
        const at = next ? out.indexOf(next[0], from) : -1
        if (at < 0) return
        from = at + next[0].length
        asked.push(next[0])
        if (next[1] !== null) child.stdin.write(next[1] + '\r')
      }
    })
    // A question that never comes (the wrong one was asked) fails the test, and leaves no child.
    const stuck = setTimeout(() => child.kill(), 20_000)
    const code = await new Promise((resolve) => child.on('close', resolve))
    clearTimeout(stuck)
    return { code, out, asked }
  }

  it('login asks on a terminal: the endpoint first, the key last and unechoed', async () => {
    const home = newHome()
    const res = await loginOnTerminal(home, [
      // Nothing saved yet: the local default is on offer; the one typed replaces it.
      ['Endpoint [http://127.0.0.1:8787]:', server.url],
      // The endpoint just given is the web address on offer, not the default one.
      [`Web URL [${server.url}]:`, 'https://web.example'],
      ['API key:', key],
    ])
    expect(res.code, res.out).toBe(0)
    expect(res.asked).toEqual([
      'Endpoint [http://127.0.0.1:8787]:',
      `Web URL [${server.url}]:`,
      'API key:',
    ])
    expect(res.out).toContain('logged in as cli@example.com')
    expect(res.out).not.toContain(key)
    expect(JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8'))).toEqual({
      api_key: key,
      endpoint: server.url,
      web_url: 'https://web.example',
    })
  })

  it('login on a terminal offers the saved endpoint, and saves nothing when the key fails', async () => {
    const home = newHome()
    expect((await svc(home, ['config', 'set', 'endpoint', server.url])).code).toBe(0)
    const before = readFileSync(join(home, '.svc/config.json'), 'utf8')
    const wrong = 'svc_' + 'w'.repeat(40)
    const res = await loginOnTerminal(home, [
      [`Endpoint [${server.url}]:`, ''],
      [`Web URL [${server.url}]:`, ''],
      ['API key:', wrong],
    ])
    expect(res.code, res.out).toBe(1)
    expect(res.asked).toHaveLength(3)
    expect(res.out).toContain(
      `error: ${server.url} refused the key: invalid or revoked API key; nothing saved (unauthorized)`,
    )
    expect(res.out).not.toContain(wrong)
    expect(readFileSync(join(home, '.svc/config.json'), 'utf8')).toBe(before)
  })

  it('login on a terminal asks again for a URL that is not one, before the key', async () => {
    const home = newHome()
    const res = await loginOnTerminal(home, [
      ['Endpoint [http://127.0.0.1:8787]:', 'nope'],
      ["endpoint must be an http(s) URL, got 'nope'", null],
      ['Endpoint [http://127.0.0.1:8787]:', server.url],
      [`Web URL [${server.url}]:`, 'ftp://web.example'],
      ["web_url must be an http(s) URL, got 'ftp://web.example'", null],
      [`Web URL [${server.url}]:`, ''],
      ['API key:', key],
    ])
    expect(res.code, res.out).toBe(0)
    expect(res.asked).toHaveLength(7)
    // Each question once more after its bad answer, and no other.
    expect(res.out.match(/Endpoint \[/g)).toHaveLength(2)
    expect(res.out.match(/Web URL \[/g)).toHaveLength(2)
    expect(JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8'))).toEqual({
      api_key: key,
      endpoint: server.url,
      web_url: server.url,
    })
  })

  it('login --endpoint without --web-url prints links that work: the endpoint is the web URL', async () => {
    const home = newHome()
    const res = await svc(home, ['login', '--token', key, '--endpoint', server.url])
    expect(res.code).toBe(0)
    expect(JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8'))).toEqual({
      api_key: key,
      endpoint: server.url,
      web_url: server.url,
    })
    const pushed = await svc(home, ['push', file('weburl.txt', 'web url'), '--json'])
    const viewUrl = JSON.parse(pushed.stdout).view_url
    expect(viewUrl.startsWith(`${server.url}/c/`)).toBe(true)
  })

  it('links point at the endpoint in use, never at a default or another deployment', async () => {
    const env = { CANVAS_API_KEY: key, CANVAS_ENDPOINT: server.url }
    const links = async (name: string, home: string, extra: Record<string, string> = {}) => {
      const pushed = await svc(home, ['push', file(`${name}.md`, '# links')], { ...env, ...extra })
      expect(pushed.code, pushed.stderr).toBe(0)
      const [id, , printed] = pushed.stdout.trim().split('\n')
      const run = async (args: string[]) => {
        const res = await svc(home, [...args, '--json'], { ...env, ...extra })
        expect(res.code, res.stderr).toBe(0)
        return JSON.parse(res.stdout)
      }
      const shared = await svc(home, ['share', id], { ...env, ...extra })
      const listed = await run(['list'])
      return {
        printed,
        shared: shared.stdout.trim(),
        view_url: (await run(['push', file(`${name}.md`, '# again'), '--id', id])).view_url,
        view: (await run(['view', id])).view_url,
        list: listed.canvases.find((c: any) => c.canvas_id === id).view_url,
        share: (await run(['share', id])).url,
        web_url: (await run(['config', 'show'])).web_url,
        id,
      }
    }
    const expected = (web: string, got: { id: string; shared: string; share: string }) => ({
      printed: `${web}/c/${got.id}`,
      shared: expect.stringMatching(new RegExp(`^${web}/s/[A-Za-z0-9]{22}$`)),
      view_url: `${web}/c/${got.id}`,
      view: `${web}/c/${got.id}`,
      list: `${web}/c/${got.id}`,
      share: expect.stringMatching(new RegExp(`^${web}/s/[A-Za-z0-9]{22}$`)),
      web_url: web,
      id: got.id,
    })
    const withConfig = (config: Record<string, string>) => {
      const home = newHome()
      mkdirSync(join(home, '.svc'), { mode: 0o700 })
      writeFileSync(join(home, '.svc/config.json'), JSON.stringify(config))
      return home
    }

    // The five at once, each with a HOME and a file of its own.
    const other = { endpoint: 'https://other.example', web_url: 'https://web.other' }
    const [bare, elsewhere, defaultOnly, same, told] = await Promise.all([
      // Set by the environment alone: no config file.
      links('bare', newHome()),
      // A config of another deployment: its web URL would be a dead link here.
      links('elsewhere', withConfig(other)),
      // A web URL saved with no endpoint is the default endpoint's, not this one's.
      links('default-only', withConfig({ web_url: 'https://web.other' })),
      // The config's own endpoint, named by the environment too: its web URL holds.
      links('same', withConfig({ endpoint: `${server.url}/`, web_url: 'https://canvas.example' })),
      // CANVAS_WEB_URL says where the pages are, whatever else is set.
      links('told', withConfig(other), { CANVAS_WEB_URL: 'https://told.example/' }),
    ])
    expect(bare).toEqual(expected(server.url, bare))
    expect(elsewhere).toEqual(expected(server.url, elsewhere))
    expect(defaultOnly).toEqual(expected(server.url, defaultOnly))
    expect(same).toEqual(expected('https://canvas.example', same))
    expect(told).toEqual(expected('https://told.example', told))
    // The workspace is shared with the other tests: leave it as it was.
    const deleted = [bare, elsewhere, defaultOnly, same, told].map(({ id }) =>
      svc(newHome(), ['delete', id, '--yes'], env),
    )
    expect((await Promise.all(deleted)).map((run) => run.code)).toEqual([0, 0, 0, 0, 0])
  })

  it('config set takes endpoint and web_url only, as URLs', async () => {
    const home = newHome()
    expect((await svc(home, ['config', 'set', 'web_url', 'https://web.example/'])).stdout).toBe(
      'web_url = https://web.example\n',
    )
    expect((await svc(home, ['config', 'set', 'endpoint', server.url])).code).toBe(0)
    const wrongKey = await svc(home, ['config', 'set', 'api_key', 'x'])
    expect(wrongKey).toMatchObject({
      code: 2,
      stderr: "error: unknown key 'api_key': use endpoint or web_url (usage)\n",
    })
    const notUrl = await svc(home, ['config', 'set', 'endpoint', 'ftp://x'])
    expect(notUrl).toMatchObject({
      code: 2,
      stderr: "error: endpoint must be an http(s) URL, got 'ftp://x' (usage)\n",
    })
    // The environment wins over the file.
    const res = await svc(home, ['whoami'], { CANVAS_API_KEY: key })
    expect(res.code).toBe(0)
    const envWeb = await svc(home, ['config', 'show'], { CANVAS_WEB_URL: 'https://env.example' })
    expect(envWeb.stdout).toContain('web_url   https://env.example (CANVAS_WEB_URL)')
    const closed = `http://127.0.0.1:${await freePort()}`
    const envEndpoint = await svc(home, ['whoami'], {
      CANVAS_API_KEY: key,
      CANVAS_ENDPOINT: closed,
    })
    expect(envEndpoint.stderr).toContain('network_error')
  })
})

describe('status and whoami', () => {
  /** Each line of a report as its columns (two spaces or more apart). */
  const report = (stdout: string) =>
    stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/ {2,}/))
  const masked = (k: string) => `${k.slice(0, 8)}…${k.slice(-4)}`
  const withConfig = (config: Record<string, string>) => {
    const home = newHome()
    mkdirSync(join(home, '.svc'), { mode: 0o700 })
    writeFileSync(join(home, '.svc/config.json'), JSON.stringify(config))
    return home
  }

  it('say which endpoint, web URL and key are in use, where each came from, and whose key it is', async () => {
    const home = await loggedIn()
    const res = await svc(home, ['status'])
    expect(res).toMatchObject({ code: 0, stderr: '' })
    expect(report(res.stdout)).toEqual([
      ['user', 'cli@example.com'],
      ['workspace', expect.stringMatching(/^cli \(\w+\)$/)],
      ['scopes', 'read, write (key cli)'],
      ['endpoint', server.url, 'from ~/.svc/config.json'],
      ['web URL', 'https://canvas.example', 'from ~/.svc/config.json'],
      ['API key', masked(key), 'from ~/.svc/config.json'],
      ['config', '~/.svc/config.json'],
    ])
    expect(res.stdout).not.toContain(key)
    // whoami says the same.
    expect(await svc(home, ['whoami'])).toMatchObject({ code: 0, stdout: res.stdout })

    // The environment wins over the file, and is named; the config's web URL still holds for the
    // config's own endpoint.
    const env = await svc(home, ['status'], {
      CANVAS_API_KEY: readKey,
      CANVAS_ENDPOINT: server.url,
    })
    expect(report(env.stdout)).toEqual([
      ['user', 'cli@example.com'],
      ['workspace', expect.any(String)],
      ['scopes', 'read (key cli)'],
      ['endpoint', server.url, 'from CANVAS_ENDPOINT'],
      ['web URL', 'https://canvas.example', 'from ~/.svc/config.json'],
      ['API key', masked(readKey), 'from CANVAS_API_KEY'],
      ['config', '~/.svc/config.json'],
    ])
    const told = await svc(home, ['status', '--json'], { CANVAS_WEB_URL: 'https://told.example' })
    expect(JSON.parse(told.stdout).sources.web_url).toEqual({
      from: 'env',
      name: 'CANVAS_WEB_URL',
    })

    // A config of another deployment: its web URL is passed over, and the report says why.
    const other = withConfig({ endpoint: 'https://other.example', web_url: 'https://web.other' })
    const elsewhere = await svc(other, ['status'], {
      CANVAS_API_KEY: key,
      CANVAS_ENDPOINT: server.url,
    })
    expect(elsewhere.code, elsewhere.stderr).toBe(0)
    expect(report(elsewhere.stdout).slice(3, 5)).toEqual([
      ['endpoint', server.url, 'from CANVAS_ENDPOINT'],
      [
        'web URL',
        server.url,
        "same as the endpoint (the config's web_url is for https://other.example)",
      ],
    ])
    // Flags check other values without saving them.
    const flags = await svc(
      other,
      ['status', '--json', '--endpoint', server.url, '--web-url', 'https://flag.example'],
      { CANVAS_API_KEY: key },
    )
    expect(flags.code, flags.stderr).toBe(0)
    const flagged = JSON.parse(flags.stdout)
    expect(flagged).toMatchObject({
      endpoint: server.url,
      web_url: 'https://flag.example',
      sources: {
        endpoint: { from: 'flag', name: '--endpoint' },
        web_url: { from: 'flag', name: '--web-url' },
        api_key: { from: 'env', name: 'CANVAS_API_KEY' },
      },
      user: { email: 'cli@example.com' },
      error: null,
    })
    expect(readFileSync(join(other, '.svc/config.json'), 'utf8')).toContain('other.example')
  })

  it('say why a key does not work, after the report, and exit 1', async () => {
    const wrong = 'svc_' + 'x'.repeat(40)
    // Nothing set: the defaults, and no key to try.
    const bare = await svc(newHome(), ['status'])
    expect(bare.code).toBe(1)
    expect(report(bare.stdout)).toEqual([
      ['endpoint', 'http://127.0.0.1:8787', 'the default'],
      ['web URL', 'http://127.0.0.1:8787', 'same as the endpoint'],
      ['API key', '(none)', 'not set'],
      ['config', '~/.svc/config.json', '(no file yet)'],
    ])
    expect(bare.stderr).toBe(
      'error: not logged in: run `svc login` or set CANVAS_API_KEY (unauthorized)\n',
    )

    // A value that is no URL names where it was set, the place to fix it.
    expect(await svc(newHome(), ['status'], { CANVAS_ENDPOINT: 'ftp://x' })).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "error: CANVAS_ENDPOINT must be an http(s) URL, got 'ftp://x' (usage)\n",
    })
    const badFile = withConfig({ endpoint: server.url, web_url: 'nope' })
    expect((await svc(badFile, ['status'])).stderr).toBe(
      `error: web_url in ${join(badFile, '.svc/config.json')} must be an http(s) URL, got 'nope' (usage)\n`,
    )

    const closed = `http://127.0.0.1:${await freePort()}`
    for (const [env, stderr, code] of [
      [
        { CANVAS_API_KEY: wrong, CANVAS_ENDPOINT: server.url },
        `error: ${server.url} refused the key: invalid or revoked API key (unauthorized)\n`,
        'unauthorized',
      ],
      [
        { CANVAS_API_KEY: key, CANVAS_ENDPOINT: closed },
        `error: cannot reach ${closed}: ECONNREFUSED (network_error)\n`,
        'network_error',
      ],
      [
        { CANVAS_API_KEY: key, CANVAS_ENDPOINT: `${server.url}/elsewhere` },
        `error: ${server.url}/elsewhere answered HTTP 404 Not Found: is it a Canvas API? (http_404)\n`,
        'http_404',
      ],
    ] as const) {
      for (const command of ['status', 'whoami']) {
        const res = await svc(newHome(), [command], env)
        expect([res.code, res.stderr], command).toEqual([1, stderr])
        // The settings are reported; no account, since none answered.
        expect(report(res.stdout).map((line) => line[0])).toEqual([
          'endpoint',
          'web URL',
          'API key',
          'config',
        ])
        const json = await svc(newHome(), [command, '--json'], env)
        expect(json.code).toBe(1)
        const message = stderr.slice('error: '.length, -` (${code})\n`.length)
        expect(JSON.parse(json.stdout)).toMatchObject({
          user: null,
          workspace: null,
          key: null,
          endpoint: env.CANVAS_ENDPOINT,
          error: { code, message },
        })
        expect(JSON.parse(json.stderr)).toEqual({ error: { code, message } })
      }
    }
  })
})

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
    const saved = await svc(home, ['push', path, '--save'])
    expect(saved.stdout.split('\n')[1]).toBe('version 1 · does not expire')

    const json = await svc(home, [
      'push',
      path,
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
      const res = await svc(home, ['push', file('clock.txt', zone)], { TZ: zone })
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
  }, 60_000)

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
  }, 60_000)

  it('list shows a table, filters by type, limits, and prints JSON', async () => {
    const home = await loggedIn()
    const a = idOf((await svc(home, ['push', file('one.txt', 'one'), '--title', 'First'])).stdout)
    const b = idOf((await svc(home, ['push', file('two.md', 'two'), '--title', 'Second'])).stdout)
    const table = (await svc(home, ['list'])).stdout.split('\n')
    expect(table[0]).toMatch(/^ID\s+TITLE\s+TYPE\s+VERSION\s+SIZE\s+VISIBILITY\s+EXPIRY$/)
    expect(table[1]).toMatch(
      new RegExp(`^${b}\\s+Second\\s+md\\s+v1\\s+3 B\\s+private\\s+in 24 h$`),
    )
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
})

describe('sharing and downloads', () => {
  it('share prints the link; download by URL, origin URL or token, with a password', async () => {
    const home = await loggedIn()
    const id = idOf(
      (await svc(home, ['push', file('page.html', '<p>shared</p>'), '--title', 'My Page'])).stdout,
    )
    const plain = await svc(home, ['share', id])
    expect(plain.stdout).toMatch(/^https:\/\/canvas\.example\/s\/[A-Za-z0-9]{22}\n$/)
    // The link has no expiry of its own, but it dies with the temporary canvas.
    expect(plain.stderr).toMatch(
      new RegExp(
        `^expires with the canvas in 24 h, at \\d\\d:\\d\\d( tomorrow)? \\(svc save ${id} lets it live as asked\\)\\n$`,
      ),
    )
    // A week asked of a canvas that lives a day: the day is what it gets, and says.
    const day = JSON.parse((await svc(home, ['push', file('day.txt', 'a day'), '--json'])).stdout)
    const week = await svc(home, ['share', day.canvas_id, '--expires', '7d', '--json'])
    expect(JSON.parse(week.stdout).expires_at).toBe(day.expires_at)
    const kept = idOf((await svc(home, ['push', file('kept.txt', 'kept'), '--save'])).stdout)
    expect((await svc(home, ['share', kept])).stderr).toBe('does not expire\n')
    const token = plain.stdout.trim().split('/s/')[1]

    const dir = mkdtempSync(join(work, 'dl-'))
    const anon = newHome() // download needs no login
    const byWebUrl = await svc(
      anon,
      ['download', plain.stdout.trim()],
      { CANVAS_ENDPOINT: server.url, CANVAS_WEB_URL: 'https://canvas.example' },
      dir,
    )
    // What was written, on stderr; nothing on stdout, which holds content only.
    expect(byWebUrl).toMatchObject({ code: 0, stdout: '', stderr: 'wrote My Page.html (13 B)\n' })
    expect(readFileSync(join(dir, 'My Page.html'), 'utf8')).toBe('<p>shared</p>')
    const refused = await svc(anon, ['download', `${server.url}/s/${token}`], {}, dir)
    expect(refused).toMatchObject({
      code: 1,
      stderr: 'error: My Page.html exists; pass --force to overwrite it (file_exists)\n',
    })
    expect(
      (await svc(anon, ['download', `${server.url}/s/${token}`, '--force'], {}, dir)).code,
    ).toBe(0)
    const byToken = await svc(anon, ['download', token, '-o', '-'], { CANVAS_ENDPOINT: server.url })
    expect(byToken).toMatchObject({ stdout: '<p>shared</p>', stderr: '' })
    const info = await svc(anon, ['download', token, '--info'], { CANVAS_ENDPOINT: server.url })
    expect(JSON.parse(info.stdout)).toMatchObject({
      canvas: { title: 'My Page', ext: 'html', version: 1 },
      share: { view_count: 3 },
    })

    const locked = await svc(home, [
      'share',
      id,
      '--password',
      'hunter22',
      '--expires',
      '2h',
      '--max-views',
      '5',
      '--version',
      '1',
    ])
    expect(locked.stderr).toMatch(
      /^expires in 2 h, at \d\d:\d\d( tomorrow)? · at most 5 views · pinned to version 1 · password protected\n$/,
    )
    const lockedToken = locked.stdout.trim().split('/s/')[1]
    const noPassword = await svc(anon, ['download', lockedToken, '-o', '-'], {
      CANVAS_ENDPOINT: server.url,
    })
    expect(noPassword).toMatchObject({
      code: 1,
      stderr:
        'error: this link needs a password: give --password (or set CANVAS_SHARE_PASSWORD) (share_password_required)\n',
    })
    const wrong = await svc(anon, ['download', lockedToken, '-o', '-', '--password', 'nope'], {
      CANVAS_ENDPOINT: server.url,
    })
    expect(wrong.stderr).toBe(
      'error: wrong password for this share link (share_password_invalid)\n',
    )
    const right = await svc(anon, ['download', lockedToken, '-o', '-'], {
      CANVAS_ENDPOINT: server.url,
      CANVAS_SHARE_PASSWORD: 'hunter22',
    })
    expect(right.stdout).toBe('<p>shared</p>')
    const bad = await svc(anon, ['download', 'https://x.example/other/path'])
    expect(bad).toMatchObject({
      code: 2,
      stderr:
        'error: not a share link (expected …/s/<token>): https://x.example/other/path (usage)\n',
    })
    const badExpiry = await svc(home, ['share', id, '--expires', '1y'])
    expect(badExpiry).toMatchObject({
      code: 2,
      stderr:
        'error: --expires must be a duration such as 30m, 24h or 7d (units s, m, h, d, w), at most 365d (usage)\n',
    })

    const unshare = await svc(home, ['unshare', id, '--yes'])
    expect(unshare.stdout).toBe('revoked 2 links\n')
    expect(
      (await svc(anon, ['download', token, '-o', '-'], { CANVAS_ENDPOINT: server.url })).stderr,
    ).toBe('error: share link not found (share_not_found)\n')
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

describe('the log', () => {
  it('records commands and requests in the documented shape, with no secret', async () => {
    const home = await loggedIn()
    const id = idOf((await svc(home, ['push', file('logged.txt', 'log me')])).stdout)
    await svc(home, ['share', id, '--password', 'sup3rsecret'])
    await svc(newHome(), ['whoami'], { CANVAS_API_KEY: key, CANVAS_ENDPOINT: server.url })
    const log = readFileSync(join(home, '.svc/cli.log'), 'utf8')
    const lines = log.trim().split('\n')
    for (const line of lines) expect(line).toMatch(LOG_LINE)
    expect(log).toMatch(/\[INFO\] command push \{"args":\{/)
    expect(log).toMatch(/\[INFO\] POST \/v1\/upload\/presign \{"status":200,"ms":\d+\}/)
    expect(log).toMatch(/\[INFO\] PUT \/_storage\/files\/\S+ \{"status":200,"ms":\d+\}/)
    expect(log).not.toContain(key)
    expect(log).not.toContain(key.slice(4))
    expect(log).not.toContain('sup3rsecret')
    expect(log).not.toMatch(/X-Amz-Signature=[0-9a-f]/)
    expect(statSync(join(home, '.svc/cli.log')).mode & 0o777).toBe(0o600)
  })

  it('--debug mirrors entries to stderr as they happen', async () => {
    const home = await loggedIn()
    const res = await svc(home, ['list', '--debug'])
    expect(res.code).toBe(0)
    const lines = res.stderr.trim().split('\n')
    expect(lines[0]).toMatch(/\[INFO\] command list /)
    expect(lines.some((l) => /\[INFO\] GET \/v1\/canvases \{"status":200/.test(l))).toBe(true)
    expect(res.stderr).not.toContain(key)
  })

  it('rotates at 5 MB, keeping one old file', async () => {
    const home = newHome()
    mkdirSync(join(home, '.svc'), { mode: 0o700 })
    writeFileSync(join(home, '.svc/cli.log'), 'x'.repeat(5 * 1024 * 1024))
    await svc(home, ['--help'])
    await svc(home, ['whoami'])
    expect(statSync(join(home, '.svc/cli.log.1')).size).toBe(5 * 1024 * 1024)
    expect(statSync(join(home, '.svc/cli.log')).size).toBeLessThan(1024)
  })
})

describe('--json, for scripts and agents', () => {
  // One shape per resource, whichever command prints it.
  const CANVAS = {
    canvas_id: expect.stringMatching(/^[A-Za-z0-9]+$/),
    owner_user_id: expect.any(String),
    title: expect.any(String),
    ext: expect.any(String),
    renderer_id: expect.any(String),
    visibility: expect.stringMatching(/^(private|public)$/),
    version: expect.any(Number),
    size: expect.any(Number),
    created_at: expect.any(String),
    updated_at: expect.any(String),
    expires_at: expect.toBeOneOf([null, expect.any(String)]),
    view_url: expect.stringMatching(/^https:\/\/canvas\.example\/c\/[A-Za-z0-9]+$/),
  }
  const SHARE = {
    token: expect.any(String),
    canvas_id: expect.any(String),
    expires_at: expect.toBeOneOf([null, expect.any(String)]),
    view_count: expect.any(Number),
    max_views: expect.toBeOneOf([null, expect.any(Number)]),
    version: expect.toBeOneOf([null, expect.any(Number)]),
    has_password: expect.any(Boolean),
    allow_comments: expect.any(Boolean),
    created_at: expect.any(String),
    url: expect.stringMatching(/^https:\/\/canvas\.example\/s\/[A-Za-z0-9]{22}$/),
  }

  it('every command prints one JSON document, and errors as JSON on stderr', async () => {
    const home = await loggedIn()
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
      user: { user_id: expect.any(String), email: 'cli@example.com' },
      workspace: { workspace_id: expect.any(String), name: 'cli' },
      key: { key_id: expect.any(String), name: 'cli', scopes: ['read', 'write'] },
      endpoint: server.url,
      web_url: 'https://canvas.example',
      api_key: `${key.slice(0, 8)}…${key.slice(-4)}`,
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
      api_key: `${key.slice(0, 8)}…${key.slice(-4)}`,
    })
    expect(await run(['config', 'set', 'web_url', 'https://canvas.example'])).toStrictEqual({
      web_url: 'https://canvas.example',
    })
    expect(await run(['unshare', id, '--yes'])).toStrictEqual({ canvas_id: id, revoked: 2 })
    expect(await run(['delete', id, '--yes'])).toStrictEqual({ canvas_id: id, deleted: true })
    expect(await run(['logout'])).toStrictEqual({ logged_out: true })
    expect(await run(['logout'])).toStrictEqual({ logged_out: false })

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
    const ask = async (id: string, keys: string) => {
      const child = spawn('script', ['-qec', `node ${SVC} delete ${id}`, '/dev/null'], {
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
    const ask = async (keys: string) => {
      const child = spawn('script', ['-qec', `node ${SVC} unshare ${id}`, '/dev/null'], {
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
