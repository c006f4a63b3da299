import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, svc } from './support/cli'

// `svc open` (and `svc view`) with a stand-in browser opener on the PATH: a script that writes
// down the arguments it was given, one a line. Opening asks nothing of the service.

const work = mkdtempSync(join(tmpdir(), 'canvas-open-'))
const WEB = 'https://canvas.example'
const ID = 'Xk2mQ9abcdefghij0123'

beforeAll(() => buildCli())
afterAll(() => rmSync(work, { recursive: true, force: true }))

let dirs = 0
/** A folder for PATH holding a stand-in `name` that records its arguments and exits `code`. */
function opener(name = 'xdg-open', code = 0) {
  const dir = join(work, `bin-${dirs++}`)
  mkdirSync(dir)
  const log = join(dir, 'args.log')
  const script = `#!/bin/sh\nprintf '%s\\n' "$@" > '${log}'\nexit ${code}\n`
  writeFileSync(join(dir, name), script)
  chmodSync(join(dir, name), 0o755)
  return { dir, log, args: () => (existsSync(log) ? readFileSync(log, 'utf8') : null) }
}

/** `svc <args>` with only the environment given: no display unless it says so. */
const run = (args: string[], env: Record<string, string>) =>
  svc(mkdtempSync(join(work, 'home-')), args, { CANVAS_WEB_URL: WEB, ...env }, work)

describe('svc open', () => {
  it("opens the canvas's page with the opener, the URL its one argument", async () => {
    const stand = opener()
    const res = await run(['open', ID], { PATH: stand.dir, DISPLAY: ':99' })
    expect(res).toMatchObject({ code: 0, stdout: `${WEB}/c/${ID}\n`, stderr: '' })
    expect(stand.args()).toBe(`${WEB}/c/${ID}\n`)
    // A Wayland session is a display too; --json says it opened.
    const json = await run(['open', ID, '--json'], { PATH: stand.dir, WAYLAND_DISPLAY: 'wl-0' })
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toStrictEqual({
      canvas_id: ID,
      view_url: `${WEB}/c/${ID}`,
      opened: true,
    })
    // `view` is the same command.
    const view = opener()
    expect(await run(['view', ID], { PATH: view.dir, DISPLAY: ':99' })).toMatchObject({ code: 0 })
    expect(view.args()).toBe(`${WEB}/c/${ID}\n`)
  })

  it("takes a canvas page's URL, and opens it on that URL's own host", async () => {
    const stand = opener()
    const given = `https://other.example/base/c/${ID}/diff?from=1#top`
    const res = await run(['open', given, '--json'], { PATH: stand.dir, DISPLAY: ':99' })
    expect(JSON.parse(res.stdout)).toStrictEqual({
      canvas_id: ID,
      view_url: `https://other.example/base/c/${ID}`,
      opened: true,
    })
    expect(stand.args()).toBe(`https://other.example/base/c/${ID}\n`)
    for (const bad of [
      'x;touch pwned',
      `https://canvas.example/s/${ID}`,
      `ftp://x.example/c/${ID}`,
    ]) {
      const refused = await run(['open', bad], { PATH: stand.dir, DISPLAY: ':99' })
      expect(refused).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `error: not a canvas id or page URL (…/c/<id>): ${bad} (usage)\n`,
      })
    }
  })

  it('never gives the URL to a shell', async () => {
    const stand = opener()
    // A web URL a shell would run commands from, were the URL ever shell text.
    const web = "https://canvas.example/a;touch$IFS'pwned'&&(touch$IFS'pwned')|x"
    expect(new URL(web).toString(), 'a URL as the CLI keeps it').toBe(web)
    const res = await run(['open', ID], { PATH: stand.dir, DISPLAY: ':99', CANVAS_WEB_URL: web })
    expect(res.code, res.stderr).toBe(0)
    expect(stand.args()).toBe(`${web}/c/${ID}\n`)
    expect(existsSync(join(work, 'pwned'))).toBe(false)
  })

  it('without a display, or with the opener missing or failing, prints the URL and says why', async () => {
    const stand = opener()
    const missing = join(work, 'empty-bin')
    mkdirSync(missing)
    const failing = opener('xdg-open', 3)
    for (const [env, why] of [
      [
        { PATH: stand.dir },
        'no display to open it on (neither DISPLAY nor WAYLAND_DISPLAY is set)',
      ],
      [{ PATH: missing, DISPLAY: ':99' }, 'xdg-open is not installed'],
      [{ PATH: failing.dir, DISPLAY: ':99' }, 'xdg-open failed (exit code 3)'],
    ] as const) {
      const res = await run(['open', ID], env)
      expect(res, why).toMatchObject({
        code: 0,
        stdout: `${WEB}/c/${ID}\n`,
        stderr: `not opened: ${why}\n`,
      })
      const json = await run(['open', ID, '--json'], env)
      expect(JSON.parse(json.stdout), why).toStrictEqual({
        canvas_id: ID,
        view_url: `${WEB}/c/${ID}`,
        opened: false,
      })
    }
    // Without a display the opener is not even tried.
    expect(stand.args()).toBeNull()
  })

  it('BROWSER names the program to open with, display or not', async () => {
    const stand = opener('my-browser')
    const browser = join(stand.dir, 'my-browser')
    const res = await run(['open', ID], { PATH: work, BROWSER: browser })
    expect(res).toMatchObject({ code: 0, stdout: `${WEB}/c/${ID}\n`, stderr: '' })
    expect(stand.args()).toBe(`${WEB}/c/${ID}\n`)
    const gone = await run(['open', ID], { PATH: work, BROWSER: join(work, 'no-such-browser') })
    expect(gone.stderr).toBe(
      `not opened: ${join(work, 'no-such-browser')} (BROWSER) is not installed\n`,
    )
  })
})
