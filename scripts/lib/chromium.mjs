// Debian's Chromium as the tests and scripts drive it: headless, quiet on this closed network.
export const CHROMIUM_PATH = '/usr/bin/chromium'
// The same Chromium without a browser's UI (Debian's chromium-headless-shell, the old headless
// mode): the browser tests' pages need nothing else, and it spends about a third less CPU on them
// (BENCHMARKS.md). It has no PDF viewer: the one test of that uses CHROMIUM_PATH.
export const HEADLESS_SHELL_PATH = '/usr/bin/chromium-headless-shell'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
