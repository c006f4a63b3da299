import { ipv4Kind, ipv6Kind } from './addresses'

// Where the service may send a request on someone's behalf: a webhook's deliveries
// (docs/comments-and-webhooks.md) and the fetch of an OAuth client's metadata document, both asked
// for by people the service does not control. An https URL on a public name or address; a URL aimed
// at the service's own network (loopback, private ranges, link-local cloud metadata) is refused, in
// every spelling the URL parser accepts. Names are judged by their form here; what a name resolves
// to is asked of DNS before each request (domain/public-dns.ts).

export const MAX_PUBLIC_URL_LENGTH = 2048

/** Names no public DNS answers: this machine, a local network, or reserved for tests (RFC 6761). */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'lan', 'home.arpa', 'arpa']
const RESERVED_SUFFIXES = ['test', 'example', 'invalid', 'onion']

/**
 * What is wrong with `raw` as a URL the service may call, or null when nothing is. `allowLocal`
 * (WEBHOOK_ALLOW_LOCAL) lets local tests use http and loopback addresses, nothing else private.
 */
export function publicUrlProblem(raw: string, allowLocal: boolean): string | null {
  if (raw.length > MAX_PUBLIC_URL_LENGTH) {
    return `must be at most ${MAX_PUBLIC_URL_LENGTH} characters`
  }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute URL, such as https://example.com/hooks'
  }
  if (url.protocol !== 'https:' && !(allowLocal && url.protocol === 'http:')) {
    return 'must use https'
  }
  if (url.username || url.password) return 'must not carry a user name or password'
  if (url.hash) return 'must not have a #fragment'
  const port = url.port === '' ? null : Number(url.port)
  // The receivers people run listen on 443 or an unprivileged port; the other privileged ports
  // are other protocols' services (mail, SSH, databases' admin ports), no place for a webhook.
  if (port !== null && port !== 443 && port !== 80 && port < 1024) {
    return 'must use port 443, 80 or one from 1024 up'
  }
  const host = url.hostname.replace(/\.$/, '').toLowerCase()
  const address = host.startsWith('[') ? ipv6Kind(host.slice(1, -1)) : ipv4Kind(host)
  if (address === 'loopback' && allowLocal) return null
  if (address === 'public') return null
  if (address !== null) return 'must not be a private, loopback or reserved address'
  return nameProblem(host, allowLocal)
}

function nameProblem(host: string, allowLocal: boolean): string | null {
  const ends = (suffix: string) => host === suffix || host.endsWith(`.${suffix}`)
  if (ends('localhost')) return allowLocal ? null : 'must not be a local name'
  if (LOCAL_SUFFIXES.some(ends)) return 'must not be a local name'
  if (RESERVED_SUFFIXES.some(ends)) return 'must be a public name: that one never resolves'
  // A single label (`intranet`) is resolved, if at all, by a local search domain.
  if (!host.includes('.')) return 'must be a public name (with a dot), such as hooks.example.com'
  return null
}
