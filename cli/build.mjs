// Bundles the CLI into the single file dist/svc.mjs (run by `npm ci` through `prepare`).
import { build } from 'esbuild'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { builtinModules } from 'node:module'

import { ENDPOINT_MARKER } from '../scripts/cli-package.mjs'

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

// An ES module loads every module it imports before its first line runs, so the bundle would
// load node:http, node:https, node:crypto and the rest even for `svc --version`: that was most
// of its start-up time. Built-ins are required instead, when the code that uses them first runs.
const builtins = new Set(builtinModules)
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    build.onResolve({ filter: /^[\w:/]+$/ }, ({ path, namespace }) => {
      if (!builtins.has(path.replace(/^node:/, ''))) return undefined
      // The stand-in module's own require() is the real one, left to Node.
      return namespace === 'builtin' ? { path, external: true } : { path, namespace: 'builtin' }
    })
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(path)})`,
    }))
  },
}

const outfile = new URL('../dist/svc.mjs', import.meta.url).pathname

const result = await build({
  entryPoints: [new URL('./index.ts', import.meta.url).pathname],
  outfile,
  write: false,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  // The marker a deployment replaces with its address in the package it serves (cli-package.mjs).
  define: {
    __VERSION__: JSON.stringify(version),
    __SERVED_ENDPOINT__: JSON.stringify(ENDPOINT_MARKER),
  },
  banner: {
    js: [
      '#!/usr/bin/env node',
      "import { createRequire } from 'node:module'",
      'const require = createRequire(import.meta.url)',
    ].join('\n'),
  },
  plugins: [lazyBuiltins],
  logLevel: 'warning',
})

// Written beside and renamed: a test file building while another runs svc never reads half a file.
const temp = `${outfile}.${process.pid}.tmp`
mkdirSync(new URL('../dist', import.meta.url).pathname, { recursive: true })
writeFileSync(temp, result.outputFiles[0].contents, { mode: 0o755 })
renameSync(temp, outfile)
