import { expect, it } from 'vitest'
import { BUNDLE_BUDGET_KIB, bundleSize } from '../../scripts/lib/bundle.mjs'

// Every cold request waits for the Worker's start, which grows with its bundle: a change that
// makes the bundle larger than its budget fails here, and raising the budget takes a reason.
it(`the Worker's bundle is within its budget: ${BUNDLE_BUDGET_KIB} KiB gzipped`, () => {
  const { gzipped } = bundleSize()
  expect(gzipped / 1024).toBeLessThanOrEqual(BUNDLE_BUDGET_KIB)
}, 120_000)
