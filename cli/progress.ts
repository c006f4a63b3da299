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
