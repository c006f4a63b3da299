import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { configDir, ensureConfigDir } from './config'

// What each file or folder on this machine was published as (docs/cli.md#pushing-again), so that
// `svc push report.html` again makes a new version of the same canvas, as `vercel` and `netlify`
// remember a folder's project. Kept in ~/.svc/published.json by endpoint and absolute path, never
// in the folder itself: nothing of Canvas lands in a folder that is then published as a site.

type Entry = { canvas_id: string; at: number }
type Stored = Record<string, Record<string, Entry>>

// The oldest go past this many paths per endpoint: the file stays small.
const MAX_PATHS = 1000

const path = () => join(configDir(), 'published.json')

function readStored(): Stored {
  try {
    const value = JSON.parse(readFileSync(path(), 'utf8'))
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {}
  } catch {
    return {}
  }
}

/** The canvas `file` was last published as at `endpoint`, if any. */
export function publishedAs(endpoint: string, file: string): string | undefined {
  const entry = readStored()[endpoint]?.[file]
  return entry && typeof entry.canvas_id === 'string' ? entry.canvas_id : undefined
}

/** Remembers (or, with null, forgets) what `file` is published as; best effort. */
export function remember(endpoint: string, file: string, canvasId: string | null) {
  try {
    ensureConfigDir()
    const stored = readStored()
    const paths = (stored[endpoint] ??= {})
    if (canvasId === null) delete paths[file]
    else paths[file] = { canvas_id: canvasId, at: Date.now() }
    const byAge = Object.entries(paths).sort(([, a], [, b]) => b.at - a.at)
    stored[endpoint] = Object.fromEntries(byAge.slice(0, MAX_PATHS))
    const temp = `${path()}.${process.pid}.tmp`
    writeFileSync(temp, JSON.stringify(stored) + '\n', { mode: 0o600 })
    renameSync(temp, path())
  } catch {
    // Not written (a read-only home): the next push of the path makes a new canvas, as before.
  }
}
