#!/usr/bin/env node
// Bundles the Worker (src/index.ts) into ES modules under dist/worker, which wrangler uploads as
// they are (wrangler.jsonc: no_bundle, find_additional_modules). Split, not one file: what the
// start evaluates (the hot routes' app, src/hot.ts) is in the entry and the chunks it imports,
// and what a dynamic import() loads (the whole app, the MCP server, the renderers...) is in
// modules of its own, which the runtime parses only when first imported. In one file the start
// parsed all of it (docs/architecture.md, What the Worker evaluates when it starts). wrangler
// runs this before `wrangler dev` and every deploy (build.command); the benchmarks and the
// bundle's budget build with it too.
//   node scripts/bundle-worker.mjs [--out dist/worker] [--no-minify] [--metafile <file>]
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Writes the Worker's modules to `outdir` (emptied first); answers esbuild's metafile. */
export async function bundleWorker({ outdir = join(root, 'dist/worker'), minify = true } = {}) {
  rmSync(outdir, { recursive: true, force: true })
  mkdirSync(outdir, { recursive: true })
  const result = await build({
    absWorkingDir: root,
    entryPoints: { index: 'src/index.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2024',
    // As wrangler bundles for workerd: its conditions, and the runtime's own modules left to it.
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    external: ['cloudflare:*', 'node:*'],
    // The MCP SDK's validator, for a feature this server never uses (build/no-ajv.js).
    alias: { ajv: './build/no-ajv.js', 'ajv-formats': './build/no-ajv.js' },
    define: { 'process.env.NODE_ENV': '"production"' },
    minify,
    keepNames: false,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  })
  return result.metafile
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      'no-minify': { type: 'boolean', default: false },
      metafile: { type: 'string' },
    },
  })
  const meta = await bundleWorker({
    outdir: values.out && resolve(values.out),
    // The start's profile by module reads names (npm run bench:startup -- --by-module).
    minify: !values['no-minify'] && process.env.CANVAS_NO_MINIFY !== '1',
  })
  if (values.metafile) writeFileSync(values.metafile, JSON.stringify(meta))
}
