import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

// Roughly how long the longest files take, in seconds, for a checkout with no record of a run
// (CI): after a run Vitest records each file's duration, and that is used instead.
const EXPECTED_SECONDS: Record<string, number> = {
  'test/node/web.test.ts': 90,
  'test/node/web-people.test.ts': 90,
  'test/node/cli-login.test.ts': 25,
  'test/node/cli-json.test.ts': 20,
  'test/node/cli-canvases.test.ts': 20,
  'test/node/dev-proxy.test.ts': 30,
  'test/node/deploy.test.ts': 20,
  'test/node/oauth-e2e.test.ts': 15,
  'test/node/mcp-app.test.ts': 12,
  'test/node/cli-sites.test.ts': 10,
  'test/node/cli-readme.test.ts': 10,
  'test/node/cli-fake-server.test.ts': 10,
  'test/node/cli-flags.test.ts': 10,
  'test/node/cli-open.test.ts': 8,
  'test/node/e2e-dev.test.ts': 6,
  // Most of it waits for a webhook's retry, due 30 s after the failure.
  'test/node/webhooks-dev.test.ts': 45,
  'test/security/faults.test.ts': 35,
  'test/security/hostile-input.test.ts': 30,
  'test/security/withdrawal.test.ts': 25,
  'test/security/hostile-pages.test.ts': 20,
  'test/usage-property.test.ts': 40,
  'test/sweep-property.test.ts': 18,
  'test/sites.test.ts': 14,
  'test/sweep.test.ts': 9,
  'test/web-app.test.ts': 8,
  'test/canvases.test.ts': 8,
  'test/idempotency.test.ts': 8,
  'test/archives.test.ts': 8,
  'test/live.test.ts': 7,
  'test/shares.test.ts': 7,
  'test/mcp.test.ts': 7,
}

// A node file expected to take longer than this starts ahead of the workers files.
const LONG_MS = 30_000

// A node file that starts a wrangler dev or a Chromium of its own: seconds of starting, then long
// waits on them, so it starts ahead of the workers files too.
const STARTS_ITS_OWN = /\b(startDevServer|launchBrowser)\(/

const expectedMs = (file: string) => (EXPECTED_SECONDS[file] ?? 0) * 1000

function startsEarly(root: string, file: string, expected: number) {
  return expected >= LONG_MS || STARTS_ITS_OWN.test(readFileSync(join(root, file), 'utf8'))
}

/**
 * Orders a run so that it ends soon after its longest file. The early node files start first
 * (they wait on servers, browsers and CLIs more than they compute, and run beside the workers
 * files, which keep the cores busy); the other node files come last, when the shared dev server
 * is up. Within each, longest first, so that no long file starts last and holds up the end.
 * The workers files stay together in the queue: a workers runtime goes on to the next file
 * (isolate: false) only when that file is next in the queue, and is stopped otherwise.
 */
export class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]) {
    const root = this.ctx.config.root
    const file = (spec: TestSpecification) => relative(root, spec.moduleId)
    // The longer of the last run's duration and the expected one: a last run of `test:fast`,
    // its generated cases cut to a tenth, would otherwise start the longest files last.
    const expected = (spec: TestSpecification) =>
      Math.max(
        this.ctx.cache.getTestSpecificationResult(spec)?.duration ?? 0,
        expectedMs(file(spec)),
      )
    const turn = (spec: TestSpecification) => {
      if (spec.project.name === 'workers') return 1
      // The rule alone, not the last run's durations: a file slowed by a loaded run would start
      // early in the next, and hold back the workers files behind it.
      return startsEarly(root, file(spec), expectedMs(file(spec))) ? 0 : 2
    }
    const turns = new Map(files.map((spec) => [spec, turn(spec)]))
    return [...files].sort((a, b) => turns.get(a)! - turns.get(b)! || expected(b) - expected(a))
  }
}
