// The small rate limits of the tests (vitest.config.ts: 5 requests a 60 s period), reached on
// purpose. Miniflare's limiters count in windows aligned to the wall clock: every minute on the
// minute, each budget is full again. A burst of requests that straddles that instant finds its
// budget renewed halfway, and its statuses then say nothing of the limit (a 200 where the sixth
// request is refused, no 429 at all): rare, and enough to fail a CI run now and then.

const PERIOD_MS = 60_000

const windowOf = (time: number) => Math.floor(time / PERIOD_MS)

/**
 * Runs `burst` until one run of it falls within one window, and returns what that run returned; a
 * run that straddles a boundary is run again, whether it failed or not, and a run within one
 * window fails as it fails. Each run is given a client address no other run or file uses, and must
 * bring every other subject the limit counts by (an account, a session, a link) anew: the requests
 * of a straddling run after the boundary already count in the next window.
 *
 * The time (`now`: the runtime's clock, or a test's own) is read before and after the run; in
 * workerd it advances at each request, so the limiter counted every request of the run between
 * the two readings.
 */
export async function withinOneWindow<T>(
  burst: (client: string) => Promise<T>,
  now = Date.now,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const start = windowOf(now())
    try {
      const result = await burst(freshAddress())
      if (windowOf(now()) === start || attempt === 3) return result
    } catch (error) {
      if (windowOf(now()) === start || attempt === 3) throw error
    }
  }
}

/**
 * A client address of the documentation range (2001:db8::/32) whose network no other request
 * uses: budgets count an IPv6 client by its /64, so the random part is the network's.
 */
export function freshAddress(): string {
  return `${freshNetwork()}::1`
}

/** A /64 of the documentation range no other request uses, as the first four groups. */
export function freshNetwork(): string {
  const groups = [...crypto.getRandomValues(new Uint16Array(2))].map((n) => n.toString(16))
  return `2001:db8:${groups.join(':')}`
}
