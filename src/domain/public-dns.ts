import { addressKind } from '../lib/addresses'
import type { Services } from './services'

// Where a name the service is asked to call points (a webhook's, an OAuth client's metadata
// document's), asked of a DNS-over-HTTPS resolver (its JSON API) before the webhook is made and
// before each attempt or fetch: a name whose A or AAAA records include a private,
// loopback or reserved address is refused like the address itself. A Worker's fetch cannot be
// told which address to connect to, so a name that changes its answer between this look and the
// connection (DNS rebinding) is not caught here (SECURITY.md says what stands behind it).

/** How long the resolver may take before the name counts as not resolved (this time). */
const DNS_TIMEOUT_MS = 3000
const RECORD_TYPES = { A: 1, AAAA: 28 } as const

export type DnsVerdict =
  /** Resolved to public addresses only; or an address, or a local name local testing allows. */
  | { refused: null; unresolved: null }
  | { refused: string; unresolved: null }
  /** No answer (the resolver failed, or no such name): neither allowed nor refused. */
  | { refused: null; unresolved: string }

const OK: DnsVerdict = { refused: null, unresolved: null }

export async function resolvePublicHost(svc: Services, url: URL): Promise<DnsVerdict> {
  const host = url.hostname.replace(/\.$/, '').toLowerCase()
  // Addresses were judged as written; a local name is allowed only to local testing.
  if (host.startsWith('[') || addressKind(host) !== null) return OK
  if (host === 'localhost' || host.endsWith('.localhost')) return OK
  const allowLocal = svc.settings.webhookAllowLocal
  let answers: string[][]
  try {
    answers = await Promise.all(
      Object.entries(RECORD_TYPES).map(([name, type]) => lookup(svc, host, name, type)),
    )
  } catch (err) {
    return { refused: null, unresolved: `${host} could not be resolved (${String(err)})` }
  }
  const addresses = answers.flat()
  if (addresses.length === 0) {
    return { refused: null, unresolved: `${host} has no address` }
  }
  for (const address of addresses) {
    const kind = addressKind(address)
    if (kind === 'public' || (kind === 'loopback' && allowLocal)) continue
    return {
      refused: `must not resolve to a private, loopback or reserved address (${host} is ${address})`,
      unresolved: null,
    }
  }
  return OK
}

type DnsAnswer = { Status?: number; Answer?: { type?: number; data?: string }[] }

async function lookup(svc: Services, host: string, name: string, type: number): Promise<string[]> {
  const query = new URL(svc.settings.webhookDnsUrl)
  query.searchParams.set('name', host)
  query.searchParams.set('type', name)
  const res = await fetch(query, {
    headers: { Accept: 'application/dns-json' },
    signal: AbortSignal.timeout(DNS_TIMEOUT_MS),
  })
  if (!res.ok) {
    await res.body?.cancel()
    throw new Error(`the resolver answered ${res.status}`)
  }
  const answer = (await res.json()) as DnsAnswer
  // 3: no such name (answered as no address); anything else but 0 is the resolver's failure.
  if (answer.Status === 3) return []
  if (answer.Status !== 0) throw new Error(`the resolver answered status ${answer.Status}`)
  return (answer.Answer ?? [])
    .filter((record) => record.type === type && typeof record.data === 'string')
    .map((record) => record.data!)
}
