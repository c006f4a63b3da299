// What `npm run dev` shows of wrangler's output: everything but the table of bindings (printed
// again at every reload) and its "Ready on" line, which becomes one line saying what to do next.

const BINDINGS_START = /^Your Worker has access to the following bindings:/
const BINDINGS_ROW = /^(Binding\s|env\.)/
const READY = /Ready on (http:\/\/\S+)/
/** wrangler's log of the request readyLine makes to see whether anyone has an account. */
const PROBE = /^\[wrangler:info\] GET \/ \d{3}/

/**
 * A filter of wrangler's output, fed chunk by chunk: `write` gets the lines to show; `ready` the
 * address once wrangler listens (its line is left to the caller to replace).
 */
export function devOutputFilter(write, ready) {
  let pending = ''
  let inBindings = false
  let probed = false
  const line = (text) => {
    // Colours are dropped for matching, kept for showing.
    // eslint-disable-next-line no-control-regex
    const plain = text.replace(/\x1b\[[0-9;]*m/g, '')
    if (BINDINGS_START.test(plain)) {
      inBindings = true
      return
    }
    if (inBindings && BINDINGS_ROW.test(plain)) return
    inBindings = false
    const found = READY.exec(plain)
    if (found) {
      probed = true
      return ready(found[1])
    }
    if (probed && PROBE.test(plain)) {
      probed = false
      return
    }
    write(`${text}\n`)
  }
  return {
    push(chunk) {
      pending += chunk
      const lines = pending.split('\n')
      pending = lines.pop()
      for (const text of lines) line(text)
    },
    end() {
      if (pending) line(pending)
      pending = ''
    },
  }
}

/** The closing line: where the service is, and what a person does there first. */
export async function readyLine(url) {
  let next = 'to sign in'
  try {
    const res = await fetch(url + '/', { redirect: 'manual' })
    if (res.headers.get('location')?.startsWith('/signup')) next = 'to create your account'
  } catch {
    // Answered nothing yet: the plainer sentence.
  }
  return `Canvas is running: open ${url} ${next}.`
}
