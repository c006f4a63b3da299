import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { svc } from './support/cli'
import { server, key, newHome, file, loggedIn, idOf, useCliAccount } from './support/cli-account'
import { freePort } from './support/dev-server'

// The CLI's surface: its version, help, flags and errors, and its log.
// The built dist/svc.mjs against a real `wrangler dev`, each test with its own HOME.

useCliAccount('basics')

const LOG_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[(DEBUG|INFO|WARN|ERROR)\] .+ \{.*\}$/

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
