import type { ArgsDef } from 'citty'
import { Api } from './client'
import { CliError } from './errors'
import { resolveSettings, type Settings } from './config'
import { log, setDebug } from './log'
import type { Canvas, Share } from './types'

// Pieces every command uses: the global flags, the resolved settings and API client, output.

export const globalArgs = {
  debug: { type: 'boolean', description: 'Print every log entry to stderr as it happens' },
  json: {
    type: 'boolean',
    description: 'Print the result as one JSON document (errors too, on stderr)',
  },
} as const satisfies ArgsDef

export type Session = { settings: Settings; api: Api }

/** Starts a command: debug mirroring, the log entry, settings and the client. */
export function begin(
  command: string,
  args: Record<string, unknown>,
  flags: { endpoint?: string; webUrl?: string } = {},
): Session {
  setDebug(Boolean(args.debug))
  const { _: _positional, ...rest } = args
  log('INFO', `command ${command}`, { args: rest })
  const settings = resolveSettings(flags)
  return { settings, api: new Api(settings.endpoint, settings.apiKey) }
}

export function print(text: string) {
  process.stdout.write(text + '\n')
}

export function printJson(value: unknown) {
  print(JSON.stringify(value, null, 2))
}

const colour = () => process.stdout.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb'
export const bold = (text: string) => (colour() ? `\x1b[1m${text}\x1b[22m` : text)
export const dim = (text: string) => (colour() ? `\x1b[2m${text}\x1b[22m` : text)

export const viewUrl = (settings: Settings, canvasId: string) => `${settings.webUrl}/c/${canvasId}`
export const shareUrl = (settings: Settings, token: string) => `${settings.webUrl}/s/${token}`

// One JSON shape per resource, whichever command prints it: the API's, plus the link to open.
export const canvasJson = (settings: Settings, canvas: Canvas) => ({
  ...canvas,
  view_url: viewUrl(settings, canvas.canvas_id),
})
export const shareJson = (settings: Settings, share: Share) => ({
  ...share,
  url: shareUrl(settings, share.token),
})

/** Rows as aligned columns, the header in bold. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd()
  return [bold(line(headers)), ...rows.map(line)].join('\n')
}

export { formatSize as humanSize } from '../src/lib/format'

export function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new CliError(`--${name} must be a positive whole number`, 'usage')
  }
  return Number(value)
}
