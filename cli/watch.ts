import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { isLeftOut } from './folder'

// `push --watch`: a change runs `onChange` once its writes settle. For a file, its folder is
// watched, not the file, because editors save by writing a new file and renaming it over the old
// one, which would end a watch on the file itself. For a site, each of its folders is watched
// (the ones a push reads: not hidden ones nor node_modules, which can hold more folders than the
// system lets one process watch).

const SETTLE_MS = 150

type Poke = () => void

/** Runs `onChange` after each burst of changes to the file at `path`. */
export function watchChanges(path: string, onChange: () => Promise<void>): Promise<void> {
  const full = resolve(path)
  const name = basename(full)
  return runOnChanges((poke) => {
    const watcher = watch(dirname(full), (_event, changed) => {
      if (changed === name) poke()
    })
    return { sync: () => {}, close: () => watcher.close() }
  }, onChange)
}

/**
 * Runs `onChange` after each burst of changes under a folder; `folders()` names the folders to
 * watch, asked again after each run (a folder made since is watched from then on).
 */
export function watchFolder(
  folders: () => string[],
  onChange: () => Promise<void>,
  options: { all?: boolean } = {},
): Promise<void> {
  return runOnChanges((poke) => {
    const watchers = new Map<string, FSWatcher>()
    const sync = () => {
      const wanted = new Set(folders())
      for (const [folder, watcher] of watchers) {
        if (!wanted.has(folder)) {
          watcher.close()
          watchers.delete(folder)
        }
      }
      for (const folder of wanted) {
        if (watchers.has(folder)) continue
        try {
          const watcher = watch(folder, (_event, changed) => {
            if (options.all || !changed || !isLeftOut(String(changed))) poke()
          })
          // A folder removed ends its watch: the next run reads the folders again.
          watcher.on('error', () => {
            watcher.close()
            watchers.delete(folder)
            poke()
          })
          watchers.set(folder, watcher)
        } catch {
          // Gone since it was read: the change that removed it has poked already.
        }
      }
    }
    sync()
    return {
      sync,
      close: () => {
        for (const watcher of watchers.values()) watcher.close()
      },
    }
  }, onChange)
}

/**
 * Runs `onChange` after each burst of pokes, one run at a time, until interrupted; also once as
 * soon as the watch is set up, for a change made before it was.
 */
function runOnChanges(
  subscribe: (poke: Poke) => { sync: () => void; close: () => void },
  onChange: () => Promise<void>,
): Promise<void> {
  return new Promise((done, fail) => {
    let timer: NodeJS.Timeout | undefined
    let running: Promise<void> | null = null
    let again = false
    let stopped = false
    const run = () => {
      if (stopped) return
      if (running) {
        again = true
        return
      }
      // Folders made since the last run are watched before this one reads them, not after: a
      // file written into one once the run has said what it saw is seen.
      running = Promise.resolve()
        .then(() => watcher.sync())
        .then(onChange)
        .then(() => watcher.sync())
        .catch((err) => {
          stop()
          fail(err)
        })
        .finally(() => {
          running = null
          if (again && !stopped) {
            again = false
            run()
          }
        })
    }
    const watcher = subscribe(() => {
      clearTimeout(timer)
      timer = setTimeout(run, SETTLE_MS)
    })
    const stop = () => {
      stopped = true
      clearTimeout(timer)
      watcher.close()
      process.off('SIGINT', interrupted)
      process.off('SIGTERM', interrupted)
    }
    const interrupted = () => {
      stop()
      // A push under way finishes first: a version is either made whole or not at all.
      Promise.resolve(running).then(() => done())
    }
    process.on('SIGINT', interrupted)
    process.on('SIGTERM', interrupted)
    run()
  })
}
