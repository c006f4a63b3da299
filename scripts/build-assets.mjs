#!/usr/bin/env node
// Builds the browser code under assets/ into the Worker's static assets (dist/public, named in
// wrangler.jsonc): the script bundled and the stylesheet minified by esbuild, each named by a hash
// of its bytes, so that a browser may keep it for a year and a new release is a new name. The
// Worker learns the names from src/web/asset-urls.js, written here too. wrangler runs this before
// `wrangler dev` and every deploy (build.command), vitest before the tests, npm ci through
// `prepare`. Neither output is committed.
//   node scripts/build-assets.mjs [--source assets] [--out dist/public] [--urls src/web/asset-urls.js]
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { cliTarName, packCli } from './cli-package.mjs'
import { drawAssets } from './draw-assets.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    source: { type: 'string', default: join(root, 'assets') },
    out: { type: 'string', default: join(root, 'dist/public') },
    urls: { type: 'string', default: join(root, 'src/web/asset-urls.js') },
  },
})

/** Where the files are served from: the folder under the assets directory, and the URL path. */
const FOLDER = 'assets'
const IMMUTABLE = 'public, max-age=31536000, immutable'

const source = resolve(values.source)
const out = resolve(values.out)
const result = await bundle([join(source, 'app.ts'), join(source, 'app.css')], { outdir: out })

// The comments bridge of content frames: not a served file but a script each frame carries inline,
// allowed there by its hash alone (src/web/frames/content.ts).
const bridgeSource = join(source, 'frame-bridge.ts')
const bridge = existsSync(bridgeSource)
  ? (await bundle([bridgeSource])).outputFiles[0].text.trim()
  : ''
if (/<\/script/i.test(bridge)) {
  console.error('error: the frame bridge must not contain "</script"')
  process.exit(1)
}
const bridgeHash = `sha256-${createHash('sha256').update(bridge).digest('base64')}`

const built = Object.fromEntries(
  result.outputFiles.map((file) => {
    const ext = file.path.endsWith('.css') ? 'css' : 'js'
    return [ext, { bytes: file.contents, name: hashedName('app', ext, file.contents) }]
  }),
)

const dir = join(out, FOLDER)
mkdirSync(dir, { recursive: true })
const files = new Map()
for (const [ext, { bytes, name }] of Object.entries(built)) {
  files.set(name, bytes)
  // The old unhashed names answer too, for a page rendered before the hashed names (one release).
  files.set(`app.${ext}`, bytes)
}
for (const [name, bytes] of files) writeIfChanged(join(dir, name), bytes)
// Files of earlier builds, which a deploy would upload too (another build's temporary files are
// left alone).
for (const name of readdirSync(dir)) {
  if (/^app\.[0-9a-f]{16}\.(js|css)$/.test(name) && !files.has(name))
    rmSync(join(dir, name), { force: true })
}

// The drawing libraries of content frames, under their own folder (scripts/draw-assets.mjs); none
// from a source without them (the build's own tests).
const drawSource = join(source, 'draw')
const draw = existsSync(drawSource)
  ? await drawAssets({
      root,
      source: drawSource,
      dir: join(dir, 'draw'),
      write: writeIfChanged,
      hashedName,
    })
  : null

copyDocs(join(out, 'docs'))
// The agent skill, which /skill.md serves with this deployment's address (src/api/reference.ts).
writeIfChanged(join(out, 'skill', 'SKILL.md'), readFileSync(join(root, 'skills/canvas/SKILL.md')))
const cliTar = packedCli(dir)

const url = (name) => `/${FOLDER}/${name}`
writeIfChanged(join(out, '_headers'), headersFile(built, draw, url))
// A build stopped between writing a file and renaming it leaves the temporary file behind.
writeIfChanged(join(out, '.assetsignore'), '*.tmp\nassets/draw/manifest.json\n')
writeIfChanged(
  resolve(values.urls),
  '// Written by scripts/build-assets.mjs: the URLs of the built script and stylesheet.\n' +
    `export const APP_JS = '${url(built.js.name)}'\n` +
    `export const APP_CSS = '${url(built.css.name)}'\n` +
    `export const BRIDGE_JS = ${JSON.stringify(bridge)}\n` +
    `export const BRIDGE_HASH = '${bridgeHash}'\n` +
    `export const CLI_TAR = ${JSON.stringify(cliTar && url(cliTar))}\n` +
    `export const DRAW = ${JSON.stringify(Object.fromEntries(Object.entries(draw ?? {}).map(([k, n]) => [k, url(`draw/${n}`)])))}\n`,
)
console.log(`✔ assets: ${url(built.js.name)}, ${url(built.css.name)}`)

/**
 * The CLI's package (scripts/cli-package.mjs) among the assets, packed again only when the bundle
 * of cli/build.mjs changed; null before the CLI is built.
 */
function packedCli(dir) {
  const bundlePath = join(root, 'dist/svc.mjs')
  if (!existsSync(bundlePath)) {
    console.warn('note: dist/svc.mjs is not built (npm run build:cli): no /cli/svc.tgz')
    return null
  }
  const bundle = readFileSync(bundlePath)
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const name = cliTarName(bundle, version)
  if (!existsSync(join(dir, name))) writeIfChanged(join(dir, name), packCli(bundle, version))
  for (const old of readdirSync(dir)) {
    if (/^svc\.[0-9a-f]{16}\.tar$/.test(old) && old !== name)
      rmSync(join(dir, old), { force: true })
  }
  return name
}

/**
 * The pages of docs/ (and the README, SECURITY.md and BENCHMARKS.md beside them) as static files
 * under /docs/, with their screenshots: the deployment's /docs/<page> renders them (src/web/docs/docs.tsx).
 */
function copyDocs(to) {
  const docs = join(root, 'docs')
  const pages = readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .map((name) => [join(docs, name), name])
  for (const name of ['README.md', 'SECURITY.md', 'BENCHMARKS.md']) {
    pages.push([join(root, name), name.toLowerCase()])
  }
  mkdirSync(join(to, 'screenshots'), { recursive: true })
  for (const [from, name] of pages) writeIfChanged(join(to, name), readFileSync(from))
  for (const name of readdirSync(join(docs, 'screenshots'))) {
    writeIfChanged(join(to, 'screenshots', name), readFileSync(join(docs, 'screenshots', name)))
  }
}

/**
 * The browser code bundled and minified in memory, as a classic deferred script (nothing of it
 * reaches the page's globals); a failure says where, and ends the build.
 */
function bundle(entryPoints, options = {}) {
  return build({
    entryPoints,
    write: false,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
    ...options,
  }).catch((err) => {
    for (const { text, location } of err.errors ?? []) {
      const where = location ? `${location.file}:${location.line}:${location.column}: ` : ''
      console.error(`error: ${where}${text}`)
    }
    if (!err.errors?.length) console.error(`error: ${err.message}`)
    console.error(`error: the browser code in ${source} did not build`)
    process.exit(1)
  })
}

/** `app.<first 16 hex digits of the SHA-256 of the bytes>.<ext>`: new bytes, new name. */
function hashedName(stem, ext, bytes) {
  return `${stem}.${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.${ext}`
}

/**
 * Workers static assets apply `_headers` to the files they serve (the Worker's own answers are
 * not affected). Each file gets a rule of its own, so no two rules' values are joined.
 */
function headersFile(built, draw, url) {
  const lines = ['# Written by scripts/build-assets.mjs.']
  // Every file of the drawing libraries is named by its bytes. Mermaid's are ES modules, which a
  // sandboxed frame (an opaque origin) fetches with CORS.
  if (draw) {
    lines.push(
      url('draw/*'),
      `  Cache-Control: ${IMMUTABLE}`,
      '  X-Content-Type-Options: nosniff',
      '  Access-Control-Allow-Origin: *',
    )
  }
  for (const [ext, { name }] of Object.entries(built)) {
    lines.push(url(name), `  Cache-Control: ${IMMUTABLE}`, '  X-Content-Type-Options: nosniff')
    // The default Cache-Control: kept, but checked again at every use.
    lines.push(url(`app.${ext}`), '  X-Content-Type-Options: nosniff')
  }
  return lines.join('\n') + '\n'
}

/**
 * Several builds may run at once (each `wrangler dev` of the tests runs one): each file is replaced
 * whole, by a rename, and only when its bytes differ, so that no server sees half a file and a
 * watcher sees no change where there is none.
 */
function writeIfChanged(path, contents) {
  const bytes = Buffer.from(contents)
  try {
    if (readFileSync(path).equals(bytes)) return
  } catch {
    // Not there yet.
  }
  mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, bytes)
  renameSync(temporary, path)
}
