import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { svc } from './support/cli'
import { server, work, newHome, file, loggedIn, idOf, useCliAccount } from './support/cli-account'

// Share links and downloads through them.
// The built dist/svc.mjs against a real `wrangler dev`, each test with its own HOME.

useCliAccount('sharing')

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
