// A progress bar on stderr, only when stderr is a terminal and the transfer is over 1 MiB.

const MIN_BYTES = 1024 * 1024

export type Progress = { advance: (bytes: number) => void; done: () => void }

export function progress(label: string, total: number): Progress {
  const stream = process.stderr
  if (!stream.isTTY || total < MIN_BYTES) return { advance: () => {}, done: () => {} }
  let seen = 0
  let lastDraw = 0
  const draw = () => {
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 40))
    const ratio = total ? Math.min(1, seen / total) : 1
    const filled = Math.round(ratio * width)
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled)
    stream.write(
      `\r${label} [${bar}] ${(ratio * 100).toFixed(0).padStart(3)}% ${mb(seen)}/${mb(total)} MB`,
    )
  }
  return {
    advance(bytes) {
      seen += bytes
      const now = Date.now()
      if (now - lastDraw > 100) {
        lastDraw = now
        draw()
      }
    },
    done() {
      seen = total
      draw()
      stream.write('\n')
    },
  }
}

const mb = (n: number) => (n / 1024 / 1024).toFixed(1)

/**
 * A site's files in one line on stderr (a terminal only): files and bytes done of all. The bar
 * counts each byte twice, hashed then sent (or found already there), so it moves during either.
 */
export function siteProgress(files: number, bytes: number) {
  const stream = process.stderr
  const on = Boolean(stream.isTTY)
  let done = 0
  let doneBytes = 0
  let seen = 0
  let lastDraw = 0
  const draw = () => {
    const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - 50))
    const ratio = bytes ? Math.min(1, seen / (2 * bytes)) : done / files
    const filled = Math.round(ratio * width)
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled)
    stream.write(`\rpushing [${bar}] ${done}/${files} files ${mb(doneBytes)}/${mb(bytes)} MB`)
  }
  const tick = () => {
    const now = Date.now()
    if (on && now - lastDraw > 100) {
      lastDraw = now
      draw()
    }
  }
  /** Bytes hashed or sent of one file (its own bar is this one). */
  const file: Progress = {
    advance(n) {
      seen += n
      tick()
    },
    done: () => {},
  }
  return {
    file,
    /** A file is done: `size` its bytes, `unsent` of them not sent (already there). */
    finished(size: number, unsent: number) {
      done++
      doneBytes += size
      seen += unsent
      tick()
    },
    done() {
      if (!on) return
      seen = 2 * bytes
      doneBytes = bytes
      draw()
      stream.write('\n')
    },
  }
}
