// Bundles the CLI into the single file dist/svc.mjs (run by `npm ci` through `prepare`).
import { build } from 'esbuild'
import { readFileSync } from 'node:fs'

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

await build({
  entryPoints: [new URL('./index.ts', import.meta.url).pathname],
  outfile: new URL('../dist/svc.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  define: { __VERSION__: JSON.stringify(version) },
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
})
