import { BaseSequencer, type TestSpecification } from 'vitest/node'

// Roughly how long the longest files take, in seconds, for a checkout with no record of a run
// (CI): after a run Vitest records each file's duration, and that is used instead.
const EXPECTED_SECONDS: Record<string, number> = {
  'test/node/web.test.ts': 90,
  'test/node/cli.test.ts': 70,
  'test/node/dev-proxy.test.ts': 30,
  'test/node/deploy.test.ts': 15,
  'test/node/cli-sites.test.ts': 10,
  'test/node/cli-readme.test.ts': 10,
  'test/node/cli-fake-server.test.ts': 10,
  'test/node/cli-flags.test.ts': 8,
  'test/node/e2e-dev.test.ts': 6,
  'test/security/faults.test.ts': 35,
  'test/security/hostile-input.test.ts': 30,
  'test/security/withdrawal.test.ts': 25,
  'test/security/hostile-pages.test.ts': 20,
  'test/sweep-property.test.ts': 18,
  'test/sites.test.ts': 14,
  'test/sweep.test.ts': 9,
  'test/archives.test.ts': 8,
  'test/canvases.test.ts': 8,
  'test/web-app.test.ts': 8,
  'test/live.test.ts': 7,
  'test/shares.test.ts': 7,
}

// A node file expected to take longer than this starts ahead of the workers files.
const LONG_MS = 30_000

/**
 * Orders a run so that it ends soon after its longest file. The long node files start first: they
 * wait on servers, browsers and CLIs more than they compute, and run beside the workers files,
 * which keep the cores busy; the short node files come last, when the shared dev server is up.
 * Within each, longest first, so that no long file starts last and holds up the end of the run.
 * The workers files stay together in the queue: a workers runtime goes on to the next file
 * (isolate: false) only when that file is next in the queue, and is stopped otherwise.
 */
export class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]) {
    const expected = (spec: TestSpecification) => {
      const recorded = this.ctx.cache.getTestSpecificationResult(spec)?.duration
      if (recorded !== undefined) return recorded
      const file = Object.keys(EXPECTED_SECONDS).find((f) => spec.moduleId.endsWith(`/${f}`))
      return file ? EXPECTED_SECONDS[file] * 1000 : 0
    }
    const turn = (spec: TestSpecification) =>
      spec.project.name === 'workers' ? 1 : expected(spec) >= LONG_MS ? 0 : 2
    return [...files].sort((a, b) => turn(a) - turn(b) || expected(b) - expected(a))
  }
}
