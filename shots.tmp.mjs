import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/lib/chromium.mjs'
import { createAccount, startService } from './scripts/lib/local-service.mjs'

const work = mkdtempSync(join(tmpdir(), 'canvas-tmpshots-'))
const service = await startService(work)
const base = service.url
try {
  const owner = await createAccount(base, 'lead@example.com')
  const api = (key, path, init = {}) =>
    fetch(base + path, {
      ...init,
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        ...(init.headers ?? {}),
      },
    })
  const team = await (
    await api(owner.key, '/v1/workspaces', {
      method: 'POST',
      body: JSON.stringify({ name: 'Acme research' }),
    })
  ).json()
  const k = await (
    await fetch(base + '/auth/keys', {
      method: 'POST',
      headers: { Cookie: owner.cookie, 'Content-Type': 'application/json', Origin: base },
      body: JSON.stringify({ name: 'svc on vm', workspace_id: team.workspace_id }),
    })
  ).json()
  for (const [title, text] of [
    ['Quarterly report', '# Q3\nRevenue grew 18%.'],
    ['Latency notes', '# p50\n42 ms'],
  ]) {
    const form = new FormData()
    form.append('file', new Blob([text]), 'r.md')
    form.append('title', title)
    await fetch(base + '/v1/canvases', {
      method: 'POST',
      headers: { Authorization: `Bearer ${k.key}` },
      body: form,
    })
  }
  const invite = await (
    await api(owner.key, `/v1/workspaces/${team.workspace_id}/invites`, {
      method: 'POST',
      body: JSON.stringify({ role: 'viewer' }),
    })
  ).json()
  const signed = await fetch(base + '/auth/signup', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email: 'mate@example.com',
      password: 'a long password',
      invite: invite.url.split('/join/')[1],
    }),
  })
  if (signed.status !== 201) throw new Error('signup ' + signed.status + (await signed.text()))
  const viewer = { cookie: signed.headers.get('set-cookie').split(';')[0] }
  await fetch(base + '/auth/switch', {
    method: 'POST',
    headers: { Cookie: owner.cookie, Origin: base, 'Content-Type': 'application/json' },
    body: JSON.stringify({ workspace_id: team.workspace_id }),
  })
  const list = await (await api(k.key, '/v1/canvases')).json()
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  for (const [who, cookie, pages] of [
    ['viewer', viewer.cookie, ['/', `/c/${list.canvases[0].canvas_id}`]],
    ['owner', owner.cookie, ['/', '/settings/activity']],
  ]) {
    for (const [w, h] of [
      [390, 844],
      [1280, 800],
    ])
      for (const scheme of ['light', 'dark']) {
        const ctx = await browser.newContext({
          viewport: { width: w, height: h },
          colorScheme: scheme,
        })
        await ctx.addCookies([
          { name: cookie.split('=')[0], value: cookie.split('=')[1], url: base },
        ])
        const p = await ctx.newPage()
        for (const path of pages) {
          await p.goto(base + path)
          const name = `${who}-${path === '/' ? 'dashboard' : path.includes('activity') ? 'activity' : 'canvas'}-${w}-${scheme}`
          await p.screenshot({ path: `/tmp/shots/${name}.png`, fullPage: w === 390 })
        }
        await ctx.close()
      }
  }
  await browser.close()
} finally {
  await service.stop()
}
