import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SVC, svc } from './support/cli'
import {
  server,
  key,
  readKey,
  work,
  newHome,
  file,
  loggedIn,
  spareKey,
  useCliAccount,
} from './support/cli-account'
import { freePort } from './support/dev-server'

// Logging in and out, the config, and what status and whoami report.
// The built dist/svc.mjs against a real `wrangler dev`, each test with its own HOME.

useCliAccount('login')

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
    const noTty = await svc(home, ['login', '--paste', '--endpoint', server.url])
    expect(noTty).toMatchObject({
      code: 2,
      stderr: 'error: --paste needs a terminal to ask on (usage)\n',
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
    expect(ok.stdout).toBe(`logged in as cli@login.example (workspace cli) at ${server.url}\n`)
    expect(statSync(join(home, '.svc')).mode & 0o777).toBe(0o700)
    expect(statSync(join(home, '.svc/config.json')).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8'))).toEqual({
      api_key: key,
      key_source: 'given',
      endpoint: server.url,
      web_url: 'https://canvas.example',
    })
    const show = await svc(home, ['config', 'show'])
    expect(show.stdout).toContain(`endpoint  ${server.url}`)
    expect(show.stdout).toContain('web_url   https://canvas.example')
    expect(show.stdout).toContain(`api_key   ${key.slice(0, 8)}…${key.slice(-4)}`)
    expect(show.stdout).not.toContain(key)

    expect((await svc(home, ['whoami'])).stdout).toContain('cli@login.example')
    // A variable that wins over what was just saved is named, else the next command surprises.
    const overridden = await svc(home, ['login', '--token', key, '--endpoint', server.url], {
      CANVAS_API_KEY: readKey,
    })
    expect(overridden).toMatchObject({
      code: 0,
      stderr: 'CANVAS_API_KEY is set: commands use it, not the key just saved\n',
    })
    // A key given with --token is only forgotten at logout: it may serve elsewhere (a CI key).
    const spare = await spareKey()
    const asked = { headers: { Authorization: `Bearer ${spare}` } }
    expect((await svc(home, ['login', '--token', spare, '--endpoint', server.url])).code).toBe(0)
    const forgot = await svc(home, ['logout'])
    expect(forgot.stdout).toBe(
      'logged out: the key is forgotten here and still works where else it is used ' +
        '(svc logout --revoke, or Settings, ends it)\n',
    )
    expect((await fetch(`${server.url}/v1/me`, asked)).status).toBe(200)
    // --revoke ends it too.
    expect((await svc(home, ['login', '--token', spare, '--endpoint', server.url])).code).toBe(0)
    const logout = await svc(home, ['logout', '--revoke'])
    expect(logout.stdout).toBe('logged out: the key is revoked\n')
    expect((await fetch(`${server.url}/v1/me`, asked)).status).toBe(401)
    expect(JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8')).api_key).toBeUndefined()
    expect((await svc(home, ['whoami'])).code).toBe(1)
  })

  /**
   * `svc login --paste` on a pseudo-terminal (`script`), as a person typing would use it: each answer is
   * typed once its question shows after the one before, in the order given (null: text that shows,
   * not a question). `asked`: what showed, in order.
   */
  async function loginOnTerminal(home: string, answers: [string, string | null][]) {
    const child = spawn('script', ['-qec', `node ${SVC} login --paste`, '/dev/null'], {
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
    expect(res.out).toContain('logged in as cli@login.example')
    expect(res.out).not.toContain(key)
    expect(JSON.parse(readFileSync(join(home, '.svc/config.json'), 'utf8'))).toEqual({
      api_key: key,
      key_source: 'given',
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
      key_source: 'given',
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
      key_source: 'given',
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
      ['user', 'cli@login.example'],
      ['workspace', expect.stringMatching(/^cli \(\w+\)$/)],
      ['role', 'owner'],
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
      ['user', 'cli@login.example'],
      ['workspace', expect.any(String)],
      ['role', 'owner'],
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
    expect(report(elsewhere.stdout).slice(4, 6)).toEqual([
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
      user: { email: 'cli@login.example' },
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
