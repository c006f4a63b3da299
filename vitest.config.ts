import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { serveClientDocuments } from './test/support/client-documents.ts'
import { LongestFirst } from './test/sequencer'

// A budget no test reaches: the files that take turns on a workers runtime (isolate: false) share
// its limiters' counts, and most requests of a test come from the same client address.
const PLENTY = { limit: 100_000, period: 60 } as const

// The Worker's requests to the Internet in the workers tests. Webhooks reach the tests' receiver
// on 127.0.0.1 (test/node/support/receiver.ts), for real; the OAuth server's fetches of a client's
// metadata document are answered from test/support/client-documents.ts; anything else answers 502.
async function outbound(request: Request): Promise<Response> {
  if (new URL(request.url).hostname !== '127.0.0.1') return serveClientDocuments(request)
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD'
  return fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? await request.arrayBuffer() : undefined,
    redirect: 'manual',
  })
}

// Two projects: `workers` runs inside workerd with real D1 and R2; `node` drives real servers
// (s3rver, wrangler dev) from Node.
export default defineConfig(async () => {
  // The Worker imports the names of the built browser files, and serves them as static assets:
  // vitest runs no wrangler build step of its own.
  const root = fileURLToPath(new URL('.', import.meta.url))
  const build = join(root, 'scripts/build-assets.mjs')
  const assets = spawnSync(process.execPath, [build], { encoding: 'utf8' })
  if (assets.status !== 0) throw new Error(`building the assets failed:\n${assets.stderr}`)
  const migrations = await readD1Migrations('drizzle')
  return {
    test: {
      // Two files more than cores: the node files that start first mostly wait on the servers,
      // browsers and CLIs they drive (test/sequencer.ts). More than that only costs CPU: each
      // workers runtime transforms the modules again, and a loaded machine times tests out
      // (measured in BENCHMARKS.md, the test suite).
      maxWorkers: availableParallelism() + 2,
      sequence: { sequencer: LongestFirst },
      projects: [
        {
          plugins: [
            cloudflareTest({
              // The source, not the modules a deploy uploads (dist/worker): the tests import the
              // Worker's modules too, and both must be the same ones.
              main: './src/index.ts',
              wrangler: { configPath: './wrangler.jsonc' },
              miniflare: {
                outboundService: outbound,
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  SIGNUP: 'open',
                  STORAGE_SIGNING_SECRET: 'test-storage-signing-secret-0123456789',
                  CSRF_SECRET: 'test-csrf-secret-0123456789abcdef0123456789',
                  FRAME_SIGNING_SECRET: 'test-frame-signing-secret-0123456789abcdef',
                  // A deployment's first account needs it (test/support/api.ts sends it).
                  SETUP_TOKEN: 'test-setup-token-0123456789abcdef0123456789',
                  // How many cases the generated tests run (test/support/runs.ts), passed on from
                  // the environment: workerd sees none of its own.
                  PROPERTY_SCALE: process.env.PROPERTY_SCALE ?? '',
                  HOSTILE_RUNS: process.env.HOSTILE_RUNS ?? '',
                  WEBHOOK_ENCRYPTION_KEY: 'test-webhook-encryption-key-0123456789abcdef',
                  // Webhooks reach the tests' receiver on 127.0.0.1 (test/node/support/receiver.ts);
                  // the tests of the address rules turn this off per request.
                  WEBHOOK_ALLOW_LOCAL: '1',
                  // Reads reach their canvas's object at once: a test's answer would otherwise
                  // wait, with its request, for the isolate's gathering (docs/readership.md).
                  VIEW_GATHER_MS: '1',
                },
                queueProducers: {
                  WEBHOOKS_UNCONSUMED: { queueName: 'canvas-webhooks-unconsumed' },
                },
                ratelimits: {
                  API_LIMITER: { namespace_id: '2001', simple: PLENTY },
                  AUTH_LIMITER: { namespace_id: '2002', simple: PLENTY },
                  PUBLIC_LIMITER: { namespace_id: '2003', simple: PLENTY },
                  SHARE_PASSWORD_LIMITER: { namespace_id: '2004', simple: PLENTY },
                  FRAME_LIMITER: { namespace_id: '2005', simple: PLENTY },
                  SITE_LIMITER: { namespace_id: '2006', simple: PLENTY },
                  DIFF_LIMITER: { namespace_id: '2007', simple: PLENTY },
                  COMMENT_LIMITER: { namespace_id: '2010', simple: PLENTY },
                  CLIENT_DOCUMENT_LIMITER: { namespace_id: '2011', simple: PLENTY },
                  // Small budgets for the tests that reach the limit on purpose, each burst within
                  // one minute of the wall clock (test/support/limit-window.ts).
                  API_LIMITER_SMALL: { namespace_id: '2008', simple: { limit: 5, period: 60 } },
                  AUTH_LIMITER_SMALL: { namespace_id: '2009', simple: { limit: 5, period: 60 } },
                },
              },
            }),
          ],
          test: {
            name: 'workers',
            include: ['test/**/*.test.ts'],
            exclude: ['test/node/**'],
            setupFiles: ['test/support/fresh-storage.ts'],
            isolate: false,
            globalSetup: ['test/node/support/receiver-setup.ts'],
            // A deadline for a stuck test, not a measure of speed: generous enough that a loaded
            // machine finishes the tests that make hundreds of requests while the other files run.
            testTimeout: 60_000,
            hookTimeout: 60_000,
          },
        },
        {
          test: {
            name: 'node',
            environment: 'node',
            // A file goes on in the process of the file before it, as the workers files do on
            // their runtime: a process started and its modules loaded again for each of the 45
            // files cost more CPU than most of them use (BENCHMARKS.md, the test suite). A file
            // sets its state in its own beforeAll (cli-account.ts's bindings included) and puts
            // back what it changes of the process (time.test.ts's TZ, say).
            isolate: false,
            // expect.poll waits for what a page should soon show: a deadline for a loaded machine,
            // not a measure of speed (its 1 s default failed under another suite's load).
            expect: { poll: { timeout: 10_000 } },
            include: ['test/node/**/*.test.ts'],
            globalSetup: ['test/node/support/global-setup.ts'],
            // A deadline for a stuck test: a test that runs a few dozen CLI commands against the
            // shared dev server, beside every other file, needs minutes on a loaded 2-core machine.
            testTimeout: 120_000,
            hookTimeout: 60_000,
          },
        },
      ],
    },
  }
})
