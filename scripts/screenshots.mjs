#!/usr/bin/env node
// Screenshots for the README and docs/web.md: the dashboard, the settings page, a canvas's page
// with its versions, share links and comments (their drawer on a phone), a diff, the API reference,
// a viewer per renderer, and what a visitor without a session meets (the landing page, log in), in
// the light and the dark theme, at a laptop's width and a phone's, from a local `npm run dev`
// service in Debian's Chromium. node scripts/screenshots.mjs   (writes docs/screenshots/*.png)
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './lib/chromium.mjs'
import { createAccount, startService } from './lib/local-service.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const out = join(root, 'docs/screenshots')
mkdirSync(out, { recursive: true })
const work = mkdtempSync(join(tmpdir(), 'canvas-shots-'))
const service = await startService(work)
const base = service.url

const SAMPLES = {
  'quarterly-report.md': `# Quarterly report\n\nRevenue grew **18%** over the quarter.\n\n| Region | Q2 | Q3 |\n|---|---:|---:|\n| Europe | 1.2M | 1.4M |\n| Americas | 2.1M | 2.5M |\n\n- [x] Close the books\n- [ ] Board deck\n\n\`\`\`python\ngrowth = (q3 - q2) / q2\n\`\`\`\n`,
  'dashboard.html': `<!doctype html><html><head><style>body{font-family:system-ui;margin:0;padding:32px;background:linear-gradient(135deg,#4f46e5,#06b6d4);color:#fff;min-height:100vh;box-sizing:border-box}.k{display:flex;gap:16px}.c{background:rgba(255,255,255,.15);padding:20px;border-radius:12px;flex:1}b{font-size:32px;display:block}</style></head><body><h1>Live metrics</h1><div class="k"><div class="c"><b id="u">…</b>active users</div><div class="c"><b>99.98%</b>uptime</div><div class="c"><b>42 ms</b>p50 latency</div></div><script>document.getElementById('u').textContent=(12840).toLocaleString()</script></body></html>`,
  'server.ts': `import { Hono } from 'hono'\n\nconst app = new Hono()\n\n// Health check for the load balancer\napp.get('/health', (c) => c.json({ ok: true }))\n\nexport default app\n`,
  'config.json': JSON.stringify({
    service: 'canvas',
    replicas: 3,
    regions: ['eu', 'us'],
    limits: { upload: '10MB', rate: 600 },
    debug: false,
  }),
  'sales.csv':
    'Month,Units,Revenue\nJanuary,120,"$12,000"\nFebruary,135,"$13,500"\nMarch,160,"$16,000"\n',
  'notes.txt': 'Release checklist\n- tag the version\n- run the migrations\n- deploy\n',
  'chart.svg': `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="260" viewBox="0 0 480 260"><rect width="480" height="260" rx="16" fill="#f1f5f9"/><g fill="#4f46e5">${[
    60, 110, 90, 160, 140, 200,
  ]
    .map((h, i) => `<rect x="${40 + i * 70}" y="${230 - h}" width="44" height="${h}" rx="6"/>`)
    .join(
      '',
    )}</g><text x="40" y="36" font-family="sans-serif" font-size="20" fill="#0f172a">Weekly signups</text></svg>`,
  'release.zip': new Uint8Array([80, 75, 5, 6, ...new Array(18).fill(0)]),
  'chime.wav': wav(),
}

/** A short, valid WAV (a quiet 440 Hz tone), so the media renderer has something to play. */
function wav() {
  const rate = 8000
  const samples = rate / 2
  const bytes = new Uint8Array(44 + samples)
  const view = new DataView(bytes.buffer)
  const text = (offset, value) =>
    [...value].forEach((ch, i) => (bytes[offset + i] = ch.charCodeAt(0)))
  text(0, 'RIFF')
  view.setUint32(4, 36 + samples, true)
  text(8, 'WAVEfmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, 1, true)
  view.setUint32(24, rate, true)
  view.setUint32(28, rate, true)
  view.setUint16(32, 1, true)
  view.setUint16(34, 8, true)
  text(36, 'data')
  view.setUint32(40, samples, true)
  for (let i = 0; i < samples; i++)
    bytes[44 + i] = 128 + Math.round(20 * Math.sin((2 * Math.PI * 440 * i) / rate))
  return bytes
}

// The renderers that draw in the frame, from the fixtures their tests draw; each shot by its
// renderer's name (a chart is a .json too).
const drawing = (name) => readFileSync(join(root, 'test/fixtures/drawings', name))
const DRAWINGS = {
  'flow.mmd': drawing('flow.mmd'),
  'outputs.ipynb': drawing('outputs.ipynb'),
  'chart.vl.json': drawing('chart.vl.json'),
}
const SHOT_NAMES = { 'flow.mmd': 'mermaid', 'outputs.ipynb': 'notebook', 'chart.vl.json': 'vega' }

try {
  const { key, cookie } = await createAccount(base, 'ada@example.com')
  const ids = {}
  for (const [name, content] of Object.entries({
    ...SAMPLES,
    'hello.pdf': readFileSync(join(root, 'test/node/fixtures/hello.pdf')),
    ...DRAWINGS,
  })) {
    const form = new FormData()
    form.append('file', new Blob([content]), name)
    if (name.endsWith('.md') || name.endsWith('.html')) form.append('permanent', 'true')
    const res = await fetch(`${base}/v1/canvases`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    })
    ids[name] = (await res.json()).canvas_id
  }
  // A second version of the report and a share link, so its page has something to show.
  const report = ids['quarterly-report.md']
  const v2 = new FormData()
  const revised = SAMPLES['quarterly-report.md']
    .replace('**18%**', '**21%**')
    .replace('- [ ] Board deck', '- [x] Board deck\n- [ ] Investor letter')
  v2.append('file', new Blob([revised]), 'quarterly-report.md')
  const auth = { Authorization: `Bearer ${key}` }
  await fetch(`${base}/v1/canvases/${report}`, { method: 'PATCH', headers: auth, body: v2 })
  await fetch(`${base}/v1/canvases/${report}/shares`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ expires_in: '7d', max_views: 50 }),
  })
  // Comments on the report, one on a phrase of it with a reply, so its panel has something to show.
  const comments = `${base}/v1/canvases/${report}/comments`
  const post = async (path, body) =>
    (
      await fetch(path, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()
  const first = await post(comments, {
    body: 'Is **21%** before or after the currency effect?',
    anchor: { quote: { exact: 'grew 21%', prefix: 'Revenue ', suffix: ' over the quarter' } },
  })
  await post(`${comments}/${first.comment_id}/replies`, { body: 'After: see the appendix.' })
  await post(comments, { body: 'Ready to send once the *board deck* is in.' })
  for (const scheme of ['light', 'dark']) {
    const profile = mkdtempSync(join(work, 'profile-'))
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 760 },
      colorScheme: scheme,
    })
    await context.addCookies([
      { name: cookie.split('=')[0], value: cookie.split('=')[1], url: base },
    ])
    const page = await context.newPage()
    const shot = async (path, name, fullPage = false) => {
      await page.goto(base + path)
      // A canvas's content is drawn in its frame after the page itself: shot once it is there.
      if ((await page.locator('iframe').count()) > 0 && !name.includes('pdf')) {
        await page.frameLocator('iframe').locator('body *').first().waitFor({ timeout: 15_000 })
      }
      // A diagram or chart replaces its source once its library has drawn it.
      if (name.startsWith('viewer-')) {
        const sources = page.frameLocator('iframe').locator('.mermaid-source, .vega-source')
        await sources.first().waitFor({ state: 'detached', timeout: 15_000 })
      }
      // Chromium's PDF viewer draws its pages a while after the page has loaded.
      await page.waitForTimeout(name.includes('pdf') ? 3000 : 600)
      await page.screenshot({ path: join(out, `${name}-${scheme}.png`), fullPage })
    }
    await shot('/', 'dashboard')
    await shot('/settings', 'settings')
    await shot(`/c/${report}`, 'canvas-page', true)
    await shot(`/c/${report}/diff?from=1&to=2`, 'diff')
    await shot('/docs', 'docs')
    // A phone's shots are its screen: what one sees before scrolling.
    await page.setViewportSize({ width: 390, height: 844 })
    await shot('/', 'dashboard-phone')
    // A row's menu open: on a phone it is a sheet at the bottom of the screen, whole.
    await page.locator('tbody details.menu summary').first().click()
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(out, `dashboard-phone-menu-${scheme}.png`) })
    await shot(`/c/${report}`, 'canvas-page-phone')
    // Its comments, a drawer over the content on a phone.
    await page.locator('[data-comments-toggle]').click()
    await page.waitForTimeout(400)
    await page.screenshot({ path: join(out, `comments-phone-${scheme}.png`) })
    await shot('/settings', 'settings-phone')
    await page.setViewportSize({ width: 1280, height: 760 })
    for (const [name, id] of Object.entries(ids))
      await shot(`/c/${id}`, `viewer-${SHOT_NAMES[name] ?? name.split('.').pop()}`)
    // What a visitor without a session meets at /.
    await context.clearCookies()
    await shot('/', 'landing')
    await page.setViewportSize({ width: 390, height: 844 })
    await shot('/', 'landing-phone')
    await shot('/login', 'login-phone')
    await context.close()
  }
  console.log(`screenshots written to ${out}`)
} finally {
  service.stop()
  rmSync(work, { recursive: true, force: true })
}
