import { defineCommand, type ArgsDef, type ParsedArgs } from 'citty'
import { Api } from '../client'
import { CliError } from '../errors'
import { begin, globalArgs, humanSize, note, printJson } from '../shared'
import { downloadTo, refuseOverwrite, safeFileName } from '../transfer'
import type { ShareMetadata } from '../types'

const args = {
  ...globalArgs,
  link: { type: 'positional', required: true, description: 'A share URL (…/s/<token>) or token' },
  output: {
    type: 'string',
    alias: 'o',
    description: 'Write to this file (default: <title>.<ext>)',
  },
  info: { type: 'boolean', description: 'Print the canvas metadata as JSON; download nothing' },
  password: { type: 'string', description: 'The link’s password (or CANVAS_SHARE_PASSWORD)' },
  force: { type: 'boolean', description: 'Overwrite an existing output file' },
} as const satisfies ArgsDef

export default defineCommand({
  meta: { name: 'download', description: 'Download from a share link (no login needed)' },
  args,
  async run({ args }) {
    await fetchShare(args).catch(passwordHint)
  },
})

async function fetchShare(args: DownloadArgs) {
  const { settings } = begin('download', args)
  const { endpoint, token } = parseLink(args.link, settings.endpoint, settings.webUrl)
  const api = new Api(endpoint)
  const password = args.password ?? process.env.CANVAS_SHARE_PASSWORD
  const headers: Record<string, string> = password ? { 'X-Share-Password': password } : {}
  const path = `/share/${encodeURIComponent(token)}`
  if (args.info) {
    return printJson(await api.request<ShareMetadata>(path, { auth: false, headers }))
  }
  let output = args.output
  if (!output) {
    const meta = await api.request<ShareMetadata>(path, { auth: false, headers })
    const { title, ext } = meta.canvas
    output = safeFileName(title, ext)
  }
  if (args.json && output === '-') {
    throw new CliError('--json prints to stdout: give -o <file> for the content', 'usage')
  }
  refuseOverwrite(output === '-' ? null : output, Boolean(args.force))
  const url = await api.location(`${path}/content`, { auth: false, headers, query: { dl: 1 } })
  const bytes = await downloadTo(url, output === '-' ? null : output, Boolean(args.force))
  if (args.json) return printJson({ token, path: output })
  if (output !== '-') note(`wrote ${output} (${humanSize(bytes)})`)
}

type DownloadArgs = ParsedArgs<typeof args>

/** The API names its header; a person at the command line needs the flag. */
function passwordHint(err: unknown): never {
  if (err instanceof CliError && err.code === 'share_password_required') {
    throw new CliError(
      'this link needs a password: give --password (or set CANVAS_SHARE_PASSWORD)',
      err.code,
    )
  }
  throw err
}

/**
 * `{web_url}/s/<token>` uses the configured endpoint; any other `<origin>/s/<token>` is served by
 * the API on that origin; a bare token uses the configured endpoint.
 */
export function parseLink(link: string, endpoint: string, webUrl: string) {
  if (/^[A-Za-z0-9_-]{8,64}$/.test(link)) return { endpoint, token: link }
  let url: URL
  try {
    url = new URL(link)
  } catch {
    throw new CliError(`not a share link or token: ${link}`, 'usage')
  }
  const match = /\/s\/([A-Za-z0-9_-]{8,64})\/?$/.exec(url.pathname)
  if (!match) throw new CliError(`not a share link (expected …/s/<token>): ${link}`, 'usage')
  const sameAsWeb = url.origin === new URL(webUrl).origin
  return { endpoint: sameAsWeb ? endpoint : url.origin, token: match[1] }
}
