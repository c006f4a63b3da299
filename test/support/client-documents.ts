// Client ID Metadata Documents as the clients' own sites would serve them, for the workers tests:
// vitest.config.ts answers the Worker's outbound requests to these addresses (Miniflare's
// outboundService), so the OAuth server fetches them as it would on the Internet.

export const CIMD_REDIRECT = 'http://127.0.0.1:7777/callback'
const BASE = 'https://client.example/oauth'

const document = (url: string, fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    client_id: url,
    client_name: 'Metadata Document App',
    redirect_uris: [CIMD_REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...fields,
  })

/** Each address, what it serves; any other address on the Internet answers 502 in the tests. */
export const CLIENT_DOCUMENTS: Record<string, { status: number; body: string; type?: string }> = {
  [`${BASE}/client.json`]: { status: 200, body: document(`${BASE}/client.json`) },
  // The document names another client than the address it is served from.
  [`${BASE}/impostor.json`]: { status: 200, body: document(`${BASE}/client.json`) },
  [`${BASE}/script.json`]: {
    status: 200,
    body: document(`${BASE}/script.json`, { redirect_uris: ['javascript:alert(1)'] }),
  },
  [`${BASE}/remote-http.json`]: {
    status: 200,
    body: document(`${BASE}/remote-http.json`, { redirect_uris: ['http://evil.example/cb'] }),
  },
  [`${BASE}/huge.json`]: {
    status: 200,
    body: document(`${BASE}/huge.json`, { client_name: 'x'.repeat(10_000) }),
  },
  [`${BASE}/not-json`]: { status: 200, body: '<html>hello</html>', type: 'text/html' },
  [`${BASE}/secret.json`]: {
    status: 200,
    body: document(`${BASE}/secret.json`, { client_secret: 'shh' }),
  },
  [`${BASE}/gone.json`]: { status: 404, body: 'not found', type: 'text/plain' },
}

export const CIMD = {
  good: `${BASE}/client.json`,
  bad: {
    'names another client': `${BASE}/impostor.json`,
    'a javascript: redirect URI': `${BASE}/script.json`,
    'a remote http redirect URI': `${BASE}/remote-http.json`,
    'over the size limit': `${BASE}/huge.json`,
    'not JSON': `${BASE}/not-json`,
    'a client secret': `${BASE}/secret.json`,
    'a 404': `${BASE}/gone.json`,
  },
}

/** Miniflare's outboundService: the documents above, and nothing else. */
export function serveClientDocuments(request: Request): Response {
  const found = CLIENT_DOCUMENTS[request.url]
  if (!found) return new Response('no such host in the tests', { status: 502 })
  return new Response(found.body, {
    status: found.status,
    headers: { 'Content-Type': found.type ?? 'application/json', 'Cache-Control': 'no-store' },
  })
}
