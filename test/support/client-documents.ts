// Client ID Metadata Documents as the clients' own sites would serve them, for the workers tests:
// vitest.config.ts answers the Worker's outbound requests to these addresses (Miniflare's
// outboundService), so the OAuth server fetches them as it would on the Internet, and DNS (the
// resolver's JSON API, as Cloudflare's answers it) says where their names point. Every name under
// example.com serves the same documents, so that a test may use a host no other test counts.

export const CIMD_REDIRECT = 'http://127.0.0.1:7777/callback'
const BASE = 'https://client.example.com/oauth'
/** A name that points inside the service's network as well as outside. */
export const INSIDE_BASE = 'https://inside.example.com/oauth'
const DNS_URL = 'https://cloudflare-dns.com/dns-query'
const PUBLIC_ADDRESS = '93.184.215.14'

/** Where a name of the tests points: anything under example.com, and inside.* privately too. */
function addressesOf(name: string): string[] | null {
  if (!name.endsWith('.example.com')) return null
  return name.startsWith('inside.') ? [PUBLIC_ADDRESS, '10.1.2.3'] : [PUBLIC_ADDRESS]
}

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

type Served = { status: number; body: string; type?: string; cache?: string }

/** What each path serves on any of the names, given the document's own URL. */
const DOCUMENTS: Record<string, (url: string) => Served> = {
  '/oauth/client.json': (url) => ({ status: 200, body: document(url) }),
  // The document names another client than the address it is served from.
  '/oauth/impostor.json': (url) => ({
    status: 200,
    body: document(new URL('client.json', url).href),
  }),
  '/oauth/script.json': (url) => ({
    status: 200,
    body: document(url, { redirect_uris: ['javascript:alert(1)'] }),
  }),
  '/oauth/remote-http.json': (url) => ({
    status: 200,
    body: document(url, { redirect_uris: ['http://evil.example/cb'] }),
  }),
  '/oauth/huge.json': (url) => ({
    status: 200,
    body: document(url, { client_name: 'x'.repeat(10_000) }),
  }),
  '/oauth/not-json': () => ({ status: 200, body: '<html>hello</html>', type: 'text/html' }),
  '/oauth/secret.json': (url) => ({
    status: 200,
    body: document(url, { client_secret: 'shh' }),
  }),
  '/oauth/gone.json': () => ({ status: 404, body: 'not found', type: 'text/plain' }),
  // A name that turns the consent page's heading around (a right-to-left override).
  '/oauth/bidi.json': (url) => ({
    status: 200,
    body: document(url, { client_name: 'Canvas Helper\u202e !ti wolla ton oD' }),
  }),
  // Kept for a while by whoever fetches it, as a real client's site would say.
  '/oauth/cached.json': (url) => ({
    status: 200,
    body: document(url),
    cache: 'public, max-age=3600',
  }),
}

export const CIMD = {
  good: `${BASE}/client.json`,
  cached: `${BASE}/cached.json`,
  bad: {
    'names another client': `${BASE}/impostor.json`,
    'a javascript: redirect URI': `${BASE}/script.json`,
    'a remote http redirect URI': `${BASE}/remote-http.json`,
    'over the size limit': `${BASE}/huge.json`,
    'not JSON': `${BASE}/not-json`,
    'a client secret': `${BASE}/secret.json`,
    'a 404': `${BASE}/gone.json`,
    'a name with a bidi override': `${BASE}/bidi.json`,
  },
}

/** A document's URL on a host of its own, which no other test's fetches count against. */
export function freshDocument(path = 'client.json'): string {
  const label = [...crypto.getRandomValues(new Uint8Array(6))].map((n) => n.toString(16)).join('')
  return `https://h${label}.example.com/oauth/${path}`
}

/** Miniflare's outboundService: the documents above and their names' addresses, nothing else. */
export function serveClientDocuments(request: Request): Response {
  const url = new URL(request.url)
  const addresses =
    url.origin + url.pathname === DNS_URL && addressesOf(url.searchParams.get('name')!)
  if (addresses) return dnsAnswer(addresses, url.searchParams.get('type'))
  const serve = addressesOf(url.hostname) && url.protocol === 'https:' && DOCUMENTS[url.pathname]
  if (!serve) return new Response('no such host in the tests', { status: 502 })
  const found = serve(request.url)
  return new Response(found.body, {
    status: found.status,
    headers: {
      'Content-Type': found.type ?? 'application/json',
      'Cache-Control': found.cache ?? 'no-store',
    },
  })
}

/** The resolver's answer: the name's IPv4 addresses (the tests' names have no IPv6 ones). */
function dnsAnswer(addresses: string[], type: string | null) {
  const answer = type === 'A' ? addresses.map((data) => ({ type: 1, data })) : []
  return Response.json({ Status: 0, Answer: answer })
}
