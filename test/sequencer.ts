import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

// Roughly how long the longest files take, in seconds, for a checkout with no record of a run
// (CI): after a run Vitest records each file's duration, and that is used instead. Taken from a
// whole run's durations (files of 8 s and more); a file missing here starts last of its turn.
const EXPECTED_SECONDS: Record<string, number> = {
  'test/node/web-layout.test.ts': 79,
  'test/node/cli-readme.test.ts': 48,
  'test/usage-property.test.ts': 43,
  'test/node/web.test.ts': 42,
  'test/security/faults.test.ts': 41,
  'test/node/deploy.test.ts': 38,
  'test/node/dev-proxy.test.ts': 36,
  // Most of it waits for a webhook's retry, due 30 s after the failure.
  'test/node/webhooks-dev.test.ts': 34,
  'test/node/drawings.test.ts': 28,
  'test/node/cli-canvases.test.ts': 26,
  'test/node/web-people.test.ts': 24,
  'test/sweep-property.test.ts': 22,
  'test/security/hostile-input.test.ts': 22,
  'test/node/web-reviews.test.ts': 19,
  'test/security/hostile-pages.test.ts': 19,
  'test/security/withdrawal.test.ts': 18,
  'test/node/cli-json.test.ts': 17,
  'test/render-bounds.test.ts': 16,
  'test/access-ends-property.test.ts': 16,
  'test/node/e2e-dev.test.ts': 16,
  'test/node/web-comments.test.ts': 15,
  'test/node/web-teams.test.ts': 15,
  'test/roles-property.test.ts': 13,
  'test/sweep.test.ts': 13,
  'test/node/cli-login.test.ts': 12,
  'test/node/cli-fake-server.test.ts': 12,
  'test/webhook-delivery.test.ts': 12,
  'test/node/cli-comments.test.ts': 12,
  'test/node/web-docs.test.ts': 11,
  'test/node/cli-basics.test.ts': 11,
  'test/live.test.ts': 11,
  'test/node/cli-sites.test.ts': 10,
  'test/node/cli-flags.test.ts': 10,
  'test/node/cli-sign-in.test.ts': 10,
  'test/node/migration.test.ts': 10,
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
