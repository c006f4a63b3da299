import { watch } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'

// `push --watch`: a change to the file runs `onChange` once its writes settle. The folder is
// watched, not the file, because editors save by writing a new file and renaming it over the old
// one, which would end a watch on the file itself.

const SETTLE_MS = 150

/**
 * Runs `onChange` after each burst of changes to `path`, one run at a time, until interrupted.
 * It also runs once as soon as the watch is set up, for a change made before it was.
 */
export function watchChanges(path: string, onChange: () => Promise<void>): Promise<void> {
  const full = resolve(path)
  const name = basename(full)
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
      running = onChange()
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
    const watcher = watch(dirname(full), (_event, changed) => {
      if (changed !== name) return
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
