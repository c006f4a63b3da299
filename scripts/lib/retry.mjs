// Retrying what a busy local runtime now and then drops: a socket closed under a request (EPIPE,
// ECONNRESET, undici's "fetch failed"), a 5xx or 429 answer. A bounded number of tries with
// growing waits, each failure told on stderr with its cause, then an error naming the step: a
// benchmark must neither die of one dropped socket nor hide that it happened.

const NETWORK_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

// Local D1 under load: SQLite busy, or workerd's own "Network connection lost" between the
// Worker and its database.
const TRANSIENT_MESSAGES = /Network connection lost|SQLITE_BUSY|database is locked/i

/** A 5xx or 429 answer, thrown so that it is retried like a dropped socket. */
export class TransientAnswer extends Error {
  constructor(status, text, retryAfter) {
    super(`answered ${status}${text ? `: ${text.slice(0, 200)}` : ''}`)
    this.status = status
    this.retryAfter = retryAfter
  }
}

/**
 * Whether `err` is worth another try. Miniflare's bindings reach workerd over HTTP too, so a D1
 * call fails the same ways a fetch does; its synchronous calls come back from a worker thread
 * without `cause` or `code`, hence undici's message as well.
 */
export function isTransient(err) {
  for (let e = err; e; e = e.cause) {
    if (e instanceof TransientAnswer || NETWORK_CODES.has(e.code)) return true
    if (e instanceof TypeError && e.message === 'fetch failed') return true
    if (TRANSIENT_MESSAGES.test(String(e.message))) return true
  }
  return false
}

/**
 * An error and its causes on one line: "fetch failed: write EPIPE (EPIPE)". A cause that its
 * error's message already tells (as retry's does) is not told twice.
 */
export function describe(err) {
  const parts = []
  for (let e = err; e && parts.length < 4; e = e.cause) {
    const message = e instanceof Error ? e.message : String(e)
    if (parts.length && parts.at(-1).includes(message)) break
    parts.push(e.code && !message.includes(e.code) ? `${message} (${e.code})` : message)
  }
  return parts.join(': ')
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `attempt(n)` until it succeeds, at most `tries` times while its errors are `retryable`; waits
 * 200 ms, 400 ms, … up to 5 s between tries (jittered, so retries from several callers spread),
 * or what a 429's Retry-After asks, up to a minute. The last error is thrown as the cause of one
 * that names `what`.
 */
export async function retry(what, attempt, { tries = 8, retryable = isTransient } = {}) {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n)
    } catch (err) {
      if (!retryable(err) || n >= tries) {
        const after = n > 1 ? ` after ${n} tries` : ''
        throw new Error(`${what}: failed${after}: ${describe(err)}`, { cause: err })
      }
      const backoff = Math.min(5000, 200 * 2 ** (n - 1)) * (0.75 + Math.random() / 2)
      const wait = Math.round(err.retryAfter ? Math.min(60, err.retryAfter) * 1000 : backoff)
      console.error(`${what}: try ${n} of ${tries} failed (${describe(err)}); again in ${wait} ms`)
      await sleep(wait)
    }
  }
}
