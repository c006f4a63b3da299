import { spawn, spawnSync } from 'node:child_process'
import { defineCommand } from 'citty'
import { begin, globalArgs, print, printJson, viewUrl } from '../shared'

export default defineCommand({
  meta: { name: 'view', description: 'Open a canvas in the browser' },
  args: { ...globalArgs, id: { type: 'positional', required: true, description: 'Canvas id' } },
  async run({ args }) {
    const { settings } = begin('view', args)
    const url = viewUrl(settings, args.id)
    if (args.json) return printJson({ canvas_id: args.id, view_url: url })
    print(url)
    const opener = findOpener()
    if (!opener) return
    const child = spawn(opener.command, [...opener.args, url], { detached: true, stdio: 'ignore' })
    child.on('error', () => {})
    child.unref()
  },
})

/** macOS `open`, Windows `start`, elsewhere `xdg-open` when it is installed. */
function findOpener(): { command: string; args: string[] } | null {
  if (process.platform === 'darwin') return { command: 'open', args: [] }
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] }
  const found = spawnSync('sh', ['-c', 'command -v xdg-open'], { stdio: 'ignore' })
  return found.status === 0 ? { command: 'xdg-open', args: [] } : null
}
