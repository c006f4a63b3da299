import { toHex } from './crypto'

// The signature of a webhook delivery (docs/comments-and-webhooks.md): `Canvas-Signature: t=<unix
// seconds>, v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by the UTF-8 bytes of the webhook's
// secret. The time is signed with the body, so a receiver that refuses old timestamps refuses
// replays.

export const SIGNATURE_HEADER = 'Canvas-Signature'

const encoder = new TextEncoder()

/** The header's value for `body` sent at `seconds` (Unix time). */
export async function signatureHeader(
  secret: string,
  body: string,
  seconds: number,
): Promise<string> {
  // Imported per signature, not cached: a Worker signs under as many secrets as there are webhooks.
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`${seconds}.${body}`))
  return `t=${seconds},v1=${toHex(mac)}`
}
