import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Two projects: `workers` runs inside workerd with real D1 and R2; `node` drives real servers
// (s3rver, wrangler dev) from Node.
export default defineConfig(async () => {
  // The Worker imports the names of the built browser files, and serves them as static assets:
  // vitest runs no wrangler build step of its own.
  const build = fileURLToPath(new URL('scripts/build-assets.mjs', import.meta.url))
  const assets = spawnSync(process.execPath, [build], { encoding: 'utf8' })
  if (assets.status !== 0) throw new Error(`building the assets failed:\n${assets.stderr}`)
  const migrations = await readD1Migrations('drizzle')
  return {
    test: {
      // Two at a time even on two cores: the Node tests spend most of their time waiting on the
      // servers, browsers and CLIs they drive, and by default vitest would run files one by one.
      maxWorkers: 2,
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: './wrangler.jsonc' },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  SIGNUP: 'open',
                  STORAGE_SIGNING_SECRET: 'test-storage-signing-secret-0123456789',
                  CSRF_SECRET: 'test-csrf-secret-0123456789abcdef0123456789',
                  FRAME_SIGNING_SECRET: 'test-frame-signing-secret-0123456789abcdef',
                  // A deployment's first account needs it (test/support/api.ts sends it).
                  SETUP_TOKEN: 'test-setup-token-0123456789abcdef0123456789',
                  WEBHOOK_ENCRYPTION_KEY: 'test-webhook-encryption-key-0123456789abcdef',
                  // Webhooks reach the tests' receiver on 127.0.0.1 (test/node/support/receiver.ts);
                  // the tests of the address rules turn this off per request.
                  WEBHOOK_ALLOW_LOCAL: '1',
                },
                queueProducers: {
                  WEBHOOKS_UNCONSUMED: { queueName: 'canvas-webhooks-unconsumed' },
                },
                ratelimits: {
                  API_LIMITER: { namespace_id: '2001', simple: { limit: 1000, period: 60 } },
                  AUTH_LIMITER: { namespace_id: '2002', simple: { limit: 1000, period: 60 } },
                  PUBLIC_LIMITER: { namespace_id: '2003', simple: { limit: 1000, period: 60 } },
                  SHARE_PASSWORD_LIMITER: {
                    namespace_id: '2004',
                    simple: { limit: 1000, period: 60 },
                  },
                  FRAME_LIMITER: { namespace_id: '2005', simple: { limit: 1000, period: 60 } },
                  SITE_LIMITER: { namespace_id: '2006', simple: { limit: 5000, period: 60 } },
                  DIFF_LIMITER: { namespace_id: '2007', simple: { limit: 1000, period: 60 } },
                  // Small budgets for the tests that reach the limit on purpose.
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
            setupFiles: ['test/support/apply-migrations.ts'],
            globalSetup: ['test/node/support/receiver-setup.ts'],
            // A deadline for a stuck test, not a measure of speed: generous enough that a loaded
            // CI machine finishes the property tests that make hundreds of requests.
            testTimeout: 30_000,
          },
        },
        {
          test: {
            name: 'node',
            environment: 'node',
            include: ['test/node/**/*.test.ts'],
            testTimeout: 60_000,
            hookTimeout: 60_000,
          },
        },
      ],
    },
  }
})
