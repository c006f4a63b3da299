/** Init of an API call: `json` is sent as the JSON body; redirects are returned, not followed. */
export type ApiInit = RequestInit & { json?: unknown }

/** One call to a deployment's API as the holder of `key`, as a script or agent makes it. */
export function callApi(url: string, key: string, path: string, init: ApiInit = {}) {
  const headers = new Headers(init.headers)
  headers.set('Authorization', `Bearer ${key}`)
  if (init.json !== undefined) headers.set('Content-Type', 'application/json')
  const body = init.json !== undefined ? JSON.stringify(init.json) : init.body
  return fetch(url + path, { ...init, headers, body, redirect: 'manual' })
}
