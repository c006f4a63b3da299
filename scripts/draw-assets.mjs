// The drawing libraries of content frames (assets/draw/): Mermaid, KaTeX with its stylesheet and
// fonts, Vega-Embed with Vega and Vega-Lite. Each is named by a hash of its bytes, served as a
// static asset from any of the deployment's hosts (the content origin's frames load them), and
// loaded only by a frame that holds what it draws (src/web/frames/content.ts). Mermaid is an ES
// module split into chunks, each diagram type's loaded when a diagram of that type is drawn (a
// flowchart needs a fifth of the library); KaTeX and Vega are one script each. Bundling Mermaid
// takes seconds, so the bundles are made again only when their inputs change: the sources under
// assets/draw/, the versions of the libraries and of esbuild, and this file.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import { build } from 'esbuild'

const LIBRARIES = [
  'mermaid',
  'katex',
  'vega',
  'vega-lite',
  'vega-embed',
  'vega-interpreter',
  'esbuild',
]

/**
 * The drawing files in `dir` (made or kept), as `{ mermaid, math, mathCss, vega }`: the names of
 * what a frame loads (Mermaid's chunks beside them). `write(path, bytes)` writes one file whole.
 */
export async function drawAssets({ root, source, dir, write, hashedName }) {
  const key = inputsKey(root, source)
  const manifestPath = join(dir, 'manifest.json')
  const kept = readManifest(manifestPath)
  if (kept?.key === key && kept.files.every((n) => existsSync(join(dir, n)))) return kept.names
  const files = new Map()
  const names = {}
  for (const name of ['math', 'vega']) {
    const [bytes] = await bundled({ entryPoints: [join(source, `${name}.ts`)], format: 'iife' })
    names[name] = hashedName(name, 'js', bytes.contents)
    files.set(names[name], bytes.contents)
  }
  for (const file of await bundled({
    entryPoints: { mermaid: join(source, 'mermaid.ts') },
    format: 'esm',
    splitting: true,
    outdir: dir,
    entryNames: '[name].[hash]',
    chunkNames: 'chunk.[hash]',
  })) {
    const name = basename(file.path)
    if (name.startsWith('mermaid.')) names.mermaid = name
    files.set(name, file.contents)
  }
  const [css] = await bundled({
    stdin: {
      contents: katexCss(root),
      loader: 'css',
      resolveDir: join(root, 'node_modules/katex/dist'),
    },
    // The fonts go inside the stylesheet: a sandboxed frame's fonts from another file would need
    // CORS, and the policy allows fonts from data: already.
    loader: { '.woff2': 'dataurl' },
  })
  names.mathCss = hashedName('math', 'css', css.contents)
  files.set(names.mathCss, css.contents)
  for (const [name, bytes] of files) write(join(dir, name), bytes)
  const manifest = { key, names, files: [...files.keys()] }
  write(manifestPath, JSON.stringify(manifest, null, 2) + '\n')
  // Files of earlier builds, which a deploy would upload too.
  for (const file of readdirSync(dir)) {
    if (/\.(js|css)$/.test(file) && !files.has(file)) rmSync(join(dir, file))
  }
  return names
}

/** KaTeX's stylesheet with its fonts as WOFF2 only, the format every current browser reads. */
function katexCss(root) {
  const css = readFileSync(join(root, 'node_modules/katex/dist/katex.min.css'), 'utf8')
  return css.replace(/,url\([^)]*\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)/g, '')
}

async function bundled(options) {
  const result = await build({
    write: false,
    bundle: true,
    minify: true,
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
    ...options,
  })
  return result.outputFiles
}

function inputsKey(root, source) {
  const hash = createHash('sha256')
  for (const name of LIBRARIES) {
    const path = join(root, 'node_modules', name, 'package.json')
    hash.update(`${name}@${JSON.parse(readFileSync(path, 'utf8')).version}\n`)
  }
  for (const name of readdirSync(source).sort()) {
    hash.update(`${name}\n`).update(readFileSync(join(source, name)))
  }
  hash.update(readFileSync(new URL(import.meta.url)))
  return hash.digest('hex')
}

function readManifest(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return null
  }
}
