import { Hono, type Context } from 'hono'
import { open } from '../http/actor/steps'
import { fromThisMachine, publicOrigin, type AppEnv } from '../http/context'
import { documented } from '../http/route-docs'
import { AppError } from '../lib/errors'
import { NO_SERVED_ENDPOINT } from '../lib/cli-package'
import { CLI_TAR } from './asset-urls.js'
import type { CliInstall } from './pages/install-cli'

// GET /cli/svc.tgz (docs/cli.md#install-and-first-steps): the CLI of this very release as an npm package,
// `npm install -g <web_url>/cli/svc.tgz`, whose default endpoint is this deployment. The build
// keeps the package unzipped among the static assets with a marker where the address goes
// (scripts/cli-package.mjs); the address is written over it, space-padded to the same length so
// that no offset of the archive moves, and the result is gzipped as it streams out.

export const CLI_PACKAGE_PATH = '/cli/svc.tgz'

// Written in the package's marker in its place; the CLI trims the spaces.
const MARKER = new TextEncoder().encode('canvas:served-endpoint')
const MARKER_LENGTH = 512

export const cliPackage = new Hono<AppEnv>()

cliPackage.get(
  CLI_PACKAGE_PATH,
  open,
  documented({
    summary: 'The CLI, to install',
    description:
      'This release’s `svc` as an npm package whose default endpoint is this deployment ' +
      '(`APP_URL`; without it, none but on the machine the service runs on): ' +
      '`npm install -g <web_url>/cli/svc.tgz`. No key needed.',
    tag: 'Service',
    responses: { 200: { description: 'A gzipped npm package.', contentType: 'application/gzip' } },
  }),
  async (c) => {
    if (!CLI_TAR) throw new AppError('not_found', 'this deployment was built without its CLI')
    const stored = await c.env.ASSETS.fetch(new URL(CLI_TAR, c.req.url))
    if (!stored.ok) {
      await stored.body?.cancel()
      throw new AppError('not_found', 'this deployment’s CLI package is missing')
    }
    const tar = new Uint8Array(await stored.arrayBuffer())
    writeEndpoint(tar, servedEndpoint(c))
    c.header('Content-Type', 'application/gzip')
    c.header('Content-Disposition', 'attachment; filename="svc.tgz"')
    const body = new Blob([tar]).stream().pipeThrough(new CompressionStream('gzip'))
    return c.body(body)
  },
)

/**
 * The address the package names as its default: APP_URL, or the request's own on the machine the
 * service runs on (`npm run dev`). Elsewhere a Host header is the client's to write, and a
 * package pointed by it at another server would send that server the keys: it names none.
 */
function servedEndpoint(c: Context<AppEnv>): string {
  const { origin, fromHost } = publicOrigin(c)
  c.header('Cache-Control', fromHost ? 'private, max-age=300' : 'public, max-age=300')
  if (fromHost) c.header('Vary', 'Host')
  return namesItself(c) ? origin : NO_SERVED_ENDPOINT
}

const namesItself = <E extends AppEnv>(c: Context<E>) =>
  !publicOrigin(c).fromHost || fromThisMachine(c)

/** How the pages offer the package: its address, and whether it names that as its endpoint. */
export const cliInstall = <E extends AppEnv>(c: Context<E>): CliInstall => ({
  origin: publicOrigin(c).origin,
  named: namesItself(c),
})

/** Writes `endpoint` over the package's marker, padded with spaces to the marker's length. */
function writeEndpoint(tar: Uint8Array, endpoint: string) {
  const at = indexOf(tar, MARKER)
  const address = new TextEncoder().encode(endpoint)
  if (at < 0 || address.length > MARKER_LENGTH || /[\s'"\\]/.test(endpoint)) {
    throw new AppError('internal_error', 'the CLI package cannot name this address')
  }
  tar.fill(0x20, at, at + MARKER_LENGTH)
  tar.set(address, at)
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]
  for (let i = haystack.indexOf(first); i >= 0; i = haystack.indexOf(first, i + 1)) {
    if (i + needle.length > haystack.length) return -1
    let j = 1
    while (j < needle.length && haystack[i + j] === needle[j]) j++
    if (j === needle.length) return i
  }
  return -1
}
