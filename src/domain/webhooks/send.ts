import { errorText } from '../../lib/log'
import { open } from '../../lib/secret-box'
import { SIGNATURE_HEADER, signatureHeader } from '../../lib/webhook-signature'
import { publicUrlProblem } from '../../lib/public-url'
import { resolvePublicHost } from '../public-dns'
import type { Services } from '../services'

// One attempt of a delivery on the wire (docs/comments-and-webhooks.md): the URL checked again, the
// body signed under the webhook's secret, POSTed, and the answer told as an outcome. The receiver's
// answer is never read, and a redirect is never followed.

/** A receiver has this long to answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000

export type Outcome = {
  /** The answer's status; null when none came. */
  status: number | null
  error: string | null
  /** Retrying cannot help: the URL is no longer allowed, or the secret cannot be read. */
  final: boolean
}

/** The signed POST of `body` to the webhook, and how it went; never throws for the receiver. */
export async function send(
  svc: Services,
  target: { url: string; secret: string },
  body: string,
): Promise<Outcome> {
  const problem = publicUrlProblem(target.url, svc.settings.webhookAllowLocal)
  if (problem) return { status: null, error: `refused: the URL ${problem}`, final: true }
  const dns = await resolvePublicHost(svc, new URL(target.url))
  if (dns.refused) return { status: null, error: `refused: the URL ${dns.refused}`, final: false }
  if (dns.unresolved) return { status: null, error: dns.unresolved, final: false }
  const keyMaterial = svc.settings.webhookEncryptionKey
  const secret = keyMaterial ? await open(keyMaterial, target.secret) : null
  if (!secret) {
    const error = 'its signing secret cannot be read (WEBHOOK_ENCRYPTION_KEY changed or unset)'
    return { status: null, error, final: true }
  }
  const seconds = Math.floor(svc.now() / 1000)
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'Canvas-Webhooks',
        [SIGNATURE_HEADER]: await signatureHeader(secret, body, seconds),
      },
      body,
      // A redirect could lead anywhere, past the checks above: it counts as a failure.
      redirect: 'manual',
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    })
    await res.body?.cancel()
    const redirected = res.status >= 300 && res.status < 400
    return {
      status: res.status,
      error: redirected ? 'redirects are not followed' : null,
      final: false,
    }
  } catch (err) {
    const name = err instanceof Error ? err.name : ''
    const timedOut = name === 'TimeoutError' || name === 'AbortError'
    const error = timedOut
      ? `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
      : `could not connect: ${errorText(err)}`
    return { status: null, error, final: false }
  }
}
