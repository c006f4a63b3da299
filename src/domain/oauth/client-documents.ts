import { publicUrlProblem } from '../../lib/public-url'
import { resolvePublicHost } from '../public-dns'
import type { Services } from '../services'

// An OAuth client may name itself by the URL of its metadata document (a client ID metadata
// document), which the authorization server then fetches: a request the service makes for
// whoever sends that client_id, before anyone has logged in. So the URL passes the same guard as
// a webhook's before each fetch: https on a public name or address, in no spelling a loopback,
// private or reserved one, and a name that resolves to none.

/**
 * Whether a client_id is a URL (a document the library would fetch) rather than the id of a
 * registered client, which is a plain token without a colon.
 */
export const isDocumentUrl = (clientId: string) => clientId.includes(':')

const PREFIX = "client_id: a metadata document's URL"

/** What is wrong with the URL as written, or null: judged without asking anyone. */
export function documentUrlProblem(svc: Services, url: string): string | null {
  const problem = publicUrlProblem(url, svc.settings.webhookAllowLocal)
  return problem && `${PREFIX} ${problem}`
}

/** What is wrong with where the URL's name points (asked of DNS), or null. */
export async function documentHostProblem(svc: Services, url: string): Promise<string | null> {
  const dns = await resolvePublicHost(svc, new URL(url))
  if (dns.refused) return `${PREFIX} ${dns.refused}`
  return dns.unresolved && `${PREFIX} cannot be used: ${dns.unresolved}`
}
