import { spawn } from 'node:child_process'

// Opening a page in the person's browser. The URL is always one argument of a program run
// without a shell, so nothing in it (a server's id, a pasted link) can be read as a command.

// Most openers hand the URL to the browser and exit at once; a few run the browser itself and
// stay. One still running after this long is taken to have opened it.
const WAIT_MS = 5000

type Opener = { command: string; args: string[]; label: string }

/** Opens `url`; answers null once opened, else why it was not. */
export function openInBrowser(url: string): Promise<string | null> {
  const found = opener(url)
  if (typeof found === 'string') return Promise.resolve(found)
  return new Promise((resolve) => {
    const child = spawn(found.command, found.args, {
      detached: true,
      stdio: 'ignore',
      windowsHide: true,
    })
    // The browser it starts outlives this command.
    child.unref()
    const timer = setTimeout(() => resolve(null), WAIT_MS)
    const settle = (reason: string | null) => {
      clearTimeout(timer)
      resolve(reason)
    }
    child.on('error', (err: NodeJS.ErrnoException) =>
      settle(
        err.code === 'ENOENT'
          ? `${found.label} is not installed`
          : `${found.label}: ${err.message}`,
      ),
    )
    child.on('exit', (code, signal) => {
      if (code === 0) settle(null)
      else
        settle(`${found.label} failed (${signal ? `stopped by ${signal}` : `exit code ${code}`})`)
    })
  })
}

/** The program that opens a URL here, or why there is none. */
function opener(url: string): Opener | string {
  const { BROWSER, DISPLAY, WAYLAND_DISPLAY } = process.env
  // The convention of many tools (and how a remote editor's terminal opens pages on its client).
  if (BROWSER) return { command: BROWSER, args: [url], label: `${BROWSER} (BROWSER)` }
  if (process.platform === 'darwin') return { command: 'open', args: [url], label: 'open' }
  if (process.platform === 'win32') {
    // Not cmd's `start`: cmd would read a `&` in the URL as its own.
    const args = ['url.dll,FileProtocolHandler', url]
    return { command: 'rundll32', args, label: 'rundll32' }
  }
  if (!DISPLAY && !WAYLAND_DISPLAY) {
    return 'no display to open it on (neither DISPLAY nor WAYLAND_DISPLAY is set)'
  }
  return { command: 'xdg-open', args: [url], label: 'xdg-open' }
}
