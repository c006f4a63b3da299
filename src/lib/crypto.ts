// Randomness, hashing and password storage on WebCrypto only, so the same code runs in workerd
// and in Node tests.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const encoder = new TextEncoder()

/** `length` base62 characters; rejection sampling keeps every character uniform (5.95 bits each). */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2))
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += BASE62[b % 62]
    }
  }
  return out
}

/** Ids carry 119 random bits, share tokens 131 (docs/api.md); 96 and 128 are required. */
export const newId = () => randomBase62(20)
export const newToken = () => randomBase62(22)

export function toHex(buffer: ArrayBuffer | Uint8Array): string {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer)
  let out = ''
  for (const b of bytes) out += b.toString(16).padStart(2, '0')
  return out
}

export async function sha256Hex(
  data: string | ArrayBuffer | Uint8Array<ArrayBuffer>,
): Promise<string> {
  const input = typeof data === 'string' ? encoder.encode(data) : data
  return toHex(await crypto.subtle.digest('SHA-256', input))
}

/** Compares without an early exit, so timing tells nothing about where two secrets differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a)
  const y = encoder.encode(b)
  let diff = x.length ^ y.length
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}

// Workers cap PBKDF2 at 100,000 iterations; the count is stored with the hash so it can grow later.
const PBKDF2_ITERATIONS = 100_000

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16))
  const hash = await pbkdf2(password, salt, PBKDF2_ITERATIONS)
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${toHex(salt)}$${hash}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, saltHex, expected] = stored.split('$')
  if (scheme !== 'pbkdf2-sha256' || !iterations || !saltHex || !expected) {
    // A person who came by single sign-on has no password: refused as slowly as a wrong one.
    await burnPasswordCheck(password)
    return false
  }
  const actual = await pbkdf2(password, fromHex(saltHex), Number(iterations))
  return constantTimeEqual(actual, expected)
}

/** Spends the same time as a real check, so a wrong email answers as slowly as a wrong password. */
export async function burnPasswordCheck(password: string): Promise<void> {
  await pbkdf2(password, new Uint8Array(16), PBKDF2_ITERATIONS)
}

async function pbkdf2(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, [
    'deriveBits',
  ])
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    key,
    256,
  )
  return toHex(bits)
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

// Importing a key costs about as much as the signature itself; a Worker signs under few secrets.
const hmacKeys = new Map<string, Promise<CryptoKey>>()

/** HMAC-SHA-256 of `message` under `secret`, as lowercase hex. */
export async function hmacHex(secret: string, message: string): Promise<string> {
  let key = hmacKeys.get(secret)
  if (!key) {
    key = crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    )
    hmacKeys.set(secret, key)
  }
  return toHex(await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(message)))
}
