import { describe, expect, it } from 'vitest'
import { devOutputFilter } from '../../scripts/lib/dev-output.mjs'

// What `npm run dev` shows of wrangler's output (scripts/lib/dev-output.mjs): no table of
// bindings, at start or at a reload, and wrangler's "Ready on" given to the caller, whose line
// ends the start-up; the request that line makes to choose its words is not shown.

const WRANGLER = [
  ' ⛅️ wrangler 4.156.2',
  'Using secrets defined in .dev.vars',
  'Your Worker has access to the following bindings:',
  'Binding                         Resource          Mode',
  'env.LIVE (CanvasLive)           Durable Object    local',
  'env.SIGNUP ("closed")           Environment Variable      local',
  '⎔ Starting local server...',
  '\x1b[32m[wrangler:info] Ready on http://127.0.0.1:8787\x1b[0m',
  '[wrangler:info] GET / 302 Found (7ms)',
  '[wrangler:info] GET / 302 Found (3ms)',
  'Your Worker has access to the following bindings:',
  'env.DB (canvas)                 D1 Database       local',
  '⎔ Reloading local server...',
].join('\n')

describe('npm run dev’s output', () => {
  it('leaves out the bindings and the probe, and hands over the address', () => {
    const shown: string[] = []
    const ready: string[] = []
    const filter = devOutputFilter(
      (text) => shown.push(text),
      (url) => ready.push(url),
    )
    // Chunks cut anywhere, as a pipe delivers them.
    for (let i = 0; i < WRANGLER.length; i += 7) filter.push(WRANGLER.slice(i, i + 7))
    filter.end()
    expect(shown.join('')).toBe(
      [
        ' ⛅️ wrangler 4.156.2',
        'Using secrets defined in .dev.vars',
        '⎔ Starting local server...',
        // A person's own request after it is shown.
        '[wrangler:info] GET / 302 Found (3ms)',
        '⎔ Reloading local server...',
        '',
      ].join('\n'),
    )
    expect(ready).toEqual(['http://127.0.0.1:8787'])
  })
})
