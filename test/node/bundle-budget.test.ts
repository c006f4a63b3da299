import { beforeAll, expect, it } from 'vitest'
import { BUNDLE_BUDGET_KIB, bundleSize } from '../../scripts/lib/bundle.mjs'

// Every cold request waits for the Worker's start, which grows with what it evaluates and with
// its bundle. A change that makes the bundle larger than its budget fails here, and raising the
// budget takes a reason (BENCHMARKS.md); so does one that puts back on the start path what loads
// on first use (docs/architecture.md: What the Worker evaluates when it starts).
let built: Awaited<ReturnType<typeof bundleSize>>

beforeAll(async () => {
  built = await bundleSize()
}, 120_000)

it(`the Worker's bundle is within its budget: ${BUNDLE_BUDGET_KIB} KiB gzipped`, () => {
  expect(built.gzipped / 1024).toBeLessThanOrEqual(BUNDLE_BUDGET_KIB)
})

it('the start evaluates none of what loads on first use', () => {
  const onFirstUse = [
    // The whole app, and the route groups only it mounts (src/hot.ts says which are hot).
    'src/app.ts',
    'src/api/webhooks.ts',
    'src/api/workspaces.ts',
    'src/api/mcp.ts',
    'src/api/oauth.ts',
    'src/web/dashboard.tsx',
    'src/web/settings/',
    'src/web/docs/',
    'src/web/sso.tsx',
    'src/schema/account-requests.ts',
    'src/schema/workspace-requests.ts',
    'src/schema/responses.ts',
    'src/api/mcp-tools.ts',
    'src/api/reviews.ts',
    'src/api/mcp-review-tools.ts',
    'src/domain/reviews/wait.ts',
    'src/schema/tools.ts',
    'src/api/llms.ts',
    'src/domain/diff/',
    'src/domain/sweep.ts',
    'src/domain/webhooks/delivery.ts',
    'src/domain/sso/tokens.ts',
    'src/render/markdown.ts',
    'src/render/code.ts',
    'src/render/notebook.ts',
    'src/render/notebook-outputs.ts',
    'src/render/notebook-source.ts',
    'node_modules/@modelcontextprotocol/',
    'node_modules/@cloudflare/workers-oauth-provider/',
    'node_modules/jose/',
    'node_modules/openid-client/',
    'node_modules/marked/',
    'node_modules/highlight.js/',
    'node_modules/diff/',
    'node_modules/fflate/',
    'node_modules/@streamparser/',
  ]
  // The start path really is read: the hot routes' modules are on it.
  expect(built.atStart).toEqual(
    expect.arrayContaining(['src/hot.ts', 'src/api/canvases.ts', 'src/schema/requests.ts']),
  )
  const loaded = built.atStart.filter((path) => onFirstUse.some((lazy) => path.includes(lazy)))
  expect(loaded).toEqual([])
})
