import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

// Node reads a socket into a fresh buffer each time, and V8 frees dead buffers only at a young-
// generation GC, which it starts on its own only once 32 MiB of them have built up (twice V8's
// default maximum semi-space, a constant no flag moves). A download at full speed therefore held
// that much garbage, and glibc kept the pages. Node offers no way to read an HTTP body into a
// buffer of our own, so a download collects after every few MiB instead (what each collection
// costs, and the peak memory it leaves: BENCHMARKS.md, CLI).

type Gc = (options: { type: 'minor' }) => void

/** Counts bytes received and runs a young-generation GC after every `interval` of them. */
export function gcEvery(interval: number): (bytes: number) => void {
  const gc = exposeGc()
  if (!gc) return () => {}
  let since = 0
  return (bytes) => {
    since += bytes
    if (since < interval) return
    since = 0
    gc({ type: 'minor' })
  }
}

/** V8's own `gc`, which appears in a context created while --expose-gc is set. */
function exposeGc(): Gc | undefined {
  try {
    setFlagsFromString('--expose-gc')
    const gc: unknown = runInNewContext('gc')
    return typeof gc === 'function' ? (gc as Gc) : undefined
  } catch {
    return undefined
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
}
