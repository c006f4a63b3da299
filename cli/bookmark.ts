import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { configDir, ensureConfigDir } from './config'

// The service may answer reads from a database replica. Each answer carries the bookmark of the
// database state it saw (`x-d1-bookmark`); sent back, it makes the service read from a state no
// older, so `svc push` then `svc pull` in the next command still sees the push. Kept per endpoint in
// ~/.svc/bookmarks.json for a few minutes (a replica catches up in far less), newest wins.

export const BOOKMARK_HEADER = 'x-d1-bookmark'
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/
const KEEP_MS = 10 * 60_000

type Stored = Record<string, { bookmark: string; at: number }>

const path = () => join(configDir(), 'bookmarks.json')

function readStored(): Stored {
  try {
    const value = JSON.parse(readFileSync(path(), 'utf8'))
    return value && typeof value === 'object' ? value : {}
  } catch {
    return {}
  }
}

/** The last bookmark this machine got from `endpoint`, while it is fresh. */
export function storedBookmark(endpoint: string): string | undefined {
  const entry = readStored()[endpoint]
  if (!entry || typeof entry.bookmark !== 'string' || !BOOKMARK.test(entry.bookmark)) return
  return Date.now() - entry.at < KEEP_MS ? entry.bookmark : undefined
}

/** The newer of two bookmarks (they sort by age); an answer's that is not one is ignored. */
export function newerBookmark(current: string | undefined, answer: unknown): string | undefined {
  if (typeof answer !== 'string' || !BOOKMARK.test(answer)) return current
  return current === undefined || answer > current ? answer : current
}

/** Best effort: a bookmark not saved only means the next command may read a moment's older state. */
export function saveBookmark(endpoint: string, bookmark: string) {
  try {
    ensureConfigDir()
    const stored = readStored()
    for (const [key, entry] of Object.entries(stored)) {
      if (Date.now() - entry.at >= KEEP_MS) delete stored[key]
    }
    stored[endpoint] = { bookmark, at: Date.now() }
    const temp = `${path()}.${process.pid}.tmp`
    writeFileSync(temp, JSON.stringify(stored) + '\n', { mode: 0o600 })
    renameSync(temp, path())
  } catch {
    // Not written (a read-only home): this process still sends it on.
  }
}
