// The drawing libraries of content frames (assets/draw/): Mermaid, KaTeX with its stylesheet and
// fonts, Vega-Embed with Vega and Vega-Lite. Each is one file named by a hash of its bytes, served
// as a static asset from any of the deployment's hosts (the content origin's frames load them),
// and loaded only by a frame that holds what it draws (src/render/drawing.ts). Bundling Mermaid
// takes seconds, so the bundles are made again only when their inputs change: the sources under
// assets/draw/, the versions of the libraries and of esbuild.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'

/** The scripts, by the name the Worker knows each by. */
const SCRIPTS = ['mermaid', 'math', 'vega']
const LIBRARIES = [
  'mermaid',
  'katex',
  'vega',
  'vega-lite',
  'vega-embed',
  'vega-interpreter',
  'esbuild',
]
const NAMED = /^(mermaid|math|vega)\.[0-9a-f]{16}\.(js|css)$/

/**
 * The drawing files in `dir` (made or kept), as `{ mermaid, math, mathCss, vega }`: their names.
 * `write(path, bytes)` writes one file whole.
 */
export async function drawAssets({ root, source, dir, write, hashedName }) {
  const key = inputsKey(root, source)
  const manifestPath = join(dir, 'manifest.json')
  const kept = readManifest(manifestPath)
  if (kept?.key === key && Object.values(kept.names).every((n) => existsSync(join(dir, n)))) {
    return kept.names
  }
  const names = {}
  for (const name of SCRIPTS) {
    const bytes = await bundled({ entryPoints: [join(source, `${name}.ts`)] })
    names[name] = hashedName(name, 'js', bytes)
    write(join(dir, names[name]), bytes)
  }
  const css = await bundled({
    stdin: {
      contents: katexCss(root),
      loader: 'css',
      resolveDir: join(root, 'node_modules/katex/dist'),
    },
    // The fonts go inside the stylesheet: a sandboxed frame's fonts from another file would need
    // CORS, and the policy allows fonts from data: already.
    loader: { '.woff2': 'dataurl' },
  })
  names.mathCss = hashedName('math', 'css', css)
  write(join(dir, names.mathCss), css)
  write(manifestPath, JSON.stringify({ key, names }, null, 2) + '\n')
  for (const file of readdirSync(dir)) {
    if (NAMED.test(file) && !Object.values(names).includes(file)) rmSync(join(dir, file))
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
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
    ...options,
  })
  return result.outputFiles[0].contents
}

function inputsKey(root, source) {
  const hash = createHash('sha256')
  for (const name of LIBRARIES) {
    const { version } = JSON.parse(
      readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'),
    )
    hash.update(`${name}@${version}\n`)
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
