// The panel's requests: to the owner's page's comment routes (with the session's CSRF token) or a
// share link's, JSON both ways; a failure is an Error carrying the server's message.

export type Api = (path: string, init?: RequestInit, postKey?: string) => Promise<unknown>

/** Requests under `base`; `csrf` for the owner's page, null for a link's readers. */
export function commentsApi(base: string, csrf: string | null): Api {
  return (path, init = {}, postKey) => {
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (init.body) headers['Content-Type'] = 'application/json'
    if (csrf !== null) headers['X-CSRF-Token'] = csrf
    // A post carries the key that makes sending it twice harmless.
    if (postKey) headers['Idempotency-Key'] = postKey
    return fetch(base + path, { ...init, headers, credentials: 'same-origin' }).then(
      async (res) => {
        const body = (await res.json().catch(() => null)) as {
          error?: { message?: string }
        } | null
        if (!res.ok) throw new Error(body?.error?.message || 'That did not work. Try again.')
        return body
      },
    )
  }
}
