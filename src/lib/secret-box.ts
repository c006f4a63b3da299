// Secrets the service must read back (a webhook's signing secret), kept encrypted at rest:
// AES-256-GCM under a key derived from a Worker secret, so a copy of the database alone does not
// give them away. Sealed form: `v1.<iv>.<ciphertext and tag>`, both base64url.

const encoder = new TextEncoder()

async function aesKey(keyMaterial: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest('SHA-256', encoder.encode(`secret-box:${keyMaterial}`))
  return crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt'])
}

export async function seal(keyMaterial: string, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv },
    await aesKey(keyMaterial),
    encoder.encode(plaintext),
  )
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`
}

/** The plaintext, or null when `sealed` was not made under this key (or was altered). */
export async function open(keyMaterial: string, sealed: string): Promise<string | null> {
  const [version, iv, data] = sealed.split('.')
  if (version !== 'v1' || !iv || !data) return null
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64url(iv) },
      await aesKey(keyMaterial),
      fromBase64url(data),
    )
    return new TextDecoder().decode(plain)
  } catch {
    return null
  }
}

function base64url(bytes: Uint8Array): string {
  let text = ''
  for (const b of bytes) text += String.fromCharCode(b)
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}
