import type { ArgsDef } from 'citty'
import { Api } from './client'
import { resolveSettings, type Settings } from './config'
import { log, setDebug } from './log'
import type { Canvas, Share } from './types'

export { bold, dim, note, print, printJson, table } from './output'

// Pieces every command uses: the global flags, the resolved settings and API client, output.

export const globalArgs = {
  debug: { type: 'boolean', description: 'Print every log entry to stderr as it happens' },
  endpoint: {
    type: 'string',
    description: 'API address for this command (over CANVAS_ENDPOINT and the config)',
  },
  json: {
    type: 'boolean',
    description: 'Print the result as one JSON document (errors too, on stderr)',
  },
} as const satisfies ArgsDef

export type Session = { settings: Settings; api: Api }

/** Logs the command and its arguments (debug output as asked), before anything is resolved. */
export function started(command: string, args: Record<string, unknown>) {
  setDebug(Boolean(args.debug))
  const { _: _positional, ...rest } = args
  log('INFO', `command ${command}`, { args: rest })
}

/** Starts a command: debug mirroring, the log entry, settings and the client. */
export function begin(
  command: string,
  args: Record<string, unknown>,
  flags: { endpoint?: string; webUrl?: string } = {},
): Session {
  started(command, args)
  // A command's own --endpoint (every command has one) unless the command passed its own flags.
  const endpoint = flags.endpoint ?? (typeof args.endpoint === 'string' ? args.endpoint : undefined)
  const settings = resolveSettings({ ...flags, endpoint })
  return { settings, api: new Api(settings.endpoint, settings.apiKey) }
}

// Ids come from the server: encoded, a strange one still names one path segment.
export const viewUrl = (settings: Settings, canvasId: string) =>
  `${settings.webUrl}/c/${encodeURIComponent(canvasId)}`
export const shareUrl = (settings: Settings, token: string) =>
  `${settings.webUrl}/s/${encodeURIComponent(token)}`

// One JSON shape per resource, whichever command prints it: the API's, plus the link to open.
export const canvasJson = (settings: Settings, canvas: Canvas) => ({
  ...canvas,
  view_url: viewUrl(settings, canvas.canvas_id),
})
export const shareJson = (settings: Settings, share: Share) => ({
  ...share,
  url: shareUrl(settings, share.token),
})

export { formatSize as humanSize } from '../src/lib/format'
