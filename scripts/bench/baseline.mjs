import { build } from 'esbuild'

/** A baseline Worker of this folder (baseline-hono.ts, baseline-d1.ts) bundled as one module. */
export async function bundleBaseline(file) {
  const out = await build({
    entryPoints: [new URL(file, import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    minify: true,
    write: false,
  })
  return out.outputFiles[0].text
}
