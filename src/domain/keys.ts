import { AppError } from '../lib/errors'
import { newId, randomBase62, sha256Hex } from '../lib/crypto'
import { isoOrNull, iso, type Actor, type Services } from './services'

export const SCOPES = ['read', 'write'] as const
export type Scope = (typeof SCOPES)[number]

export type KeyAuth = Actor & {
  keyId: string
  keyName: string
  scopes: Scope[]
  email: string
  workspaceName: string
  lastUsedAt: number | null
}

const KEY_PATTERN = /^svc_[A-Za-z0-9]{32,128}$/
// last_used_at is written at most once a minute per key, off the request's critical path.
const TOUCH_INTERVAL_MS = 60_000

type KeyRow = {
  key_id: string
  name: string
  prefix: string
  scopes: string
  created_at: number
  last_used_at: number | null
}

export function presentKey(row: KeyRow) {
  return {
    key_id: row.key_id,
    name: row.name,
    prefix: row.prefix,
    scopes: parseScopes(row.scopes),
    created_at: iso(row.created_at),
    last_used_at: isoOrNull(row.last_used_at),
  }
}

/** `write` implies `read`; the stored list always says so explicitly. */
export function normalizeScopes(scopes: Scope[]): Scope[] {
  return scopes.includes('write') ? ['read', 'write'] : ['read']
}

export async function createKey(svc: Services, actor: Actor, name: string, scopes: Scope[]) {
  const secret = 'svc_' + randomBase62(40)
  const row: KeyRow = {
    key_id: newId(),
    name,
    prefix: secret.slice(0, 12),
    scopes: normalizeScopes(scopes).join(','),
    created_at: svc.now(),
    last_used_at: null,
  }
  await svc.db
    .prepare(
      `INSERT INTO api_keys (key_id, workspace_id, user_id, name, prefix, key_hash, scopes, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      row.key_id,
      actor.workspaceId,
      actor.userId,
      row.name,
      row.prefix,
      await sha256Hex(secret),
      row.scopes,
      row.created_at,
    )
    .run()
  // The secret leaves the server only in this response.
  return { ...presentKey(row), key: secret }
}

export async function listKeys(svc: Services, actor: Actor) {
  const { results } = await svc.db
    .prepare(
      `SELECT key_id, name, prefix, scopes, created_at, last_used_at FROM api_keys
       WHERE workspace_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, key_id`,
    )
    .bind(actor.workspaceId)
    .all<KeyRow>()
  return results.map(presentKey)
}

export async function revokeKey(svc: Services, actor: Actor, keyId: string) {
  const result = await svc.db
    .prepare(
      `UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND workspace_id = ? AND revoked_at IS NULL`,
    )
    .bind(svc.now(), keyId, actor.workspaceId)
    .run()
  if (result.meta.changes !== 1) throw new AppError('not_found', 'key_id: no such API key')
}

const KEY_LOOKUP = `
  SELECT k.key_id, k.name, k.scopes, k.last_used_at, k.user_id, k.workspace_id,
         u.email, w.name AS workspace_name
  FROM api_keys k
  JOIN users u ON u.user_id = k.user_id
  JOIN workspaces w ON w.workspace_id = k.workspace_id
  WHERE k.key_hash = ? AND k.revoked_at IS NULL`

type KeyLookupRow = {
  key_id: string
  name: string
  scopes: string
  last_used_at: number | null
  user_id: string
  workspace_id: string
  email: string
  workspace_name: string
}

/** The stored hash of a presented key, or null when it cannot be a key at all. */
export async function keyHashOf(secret: string): Promise<string | null> {
  return KEY_PATTERN.test(secret) ? sha256Hex(secret) : null
}

/**
 * The lookup of a key with its user and workspace, as a statement, so a route can batch it with
 * its own query and answer in one D1 round trip.
 */
export function keyStatement(svc: Services, keyHash: string): D1PreparedStatement {
  return svc.db.prepare(KEY_LOOKUP).bind(keyHash)
}

export function keyFromRow(row: KeyLookupRow | undefined | null): KeyAuth | null {
  if (!row) return null
  return {
    keyId: row.key_id,
    keyName: row.name,
    scopes: parseScopes(row.scopes),
    userId: row.user_id,
    workspaceId: row.workspace_id,
    email: row.email,
    workspaceName: row.workspace_name,
    lastUsedAt: row.last_used_at,
  }
}

/** One D1 round trip: the key with its user and workspace, or null for unknown and revoked keys. */
export async function authenticateKey(svc: Services, secret: string): Promise<KeyAuth | null> {
  const hash = await keyHashOf(secret)
  if (!hash) return null
  return keyFromRow(await keyStatement(svc, hash).first<KeyLookupRow>())
}

/** Returns the write to run after the response, or null when the stored time is recent enough. */
export function touchKey(svc: Services, auth: KeyAuth): Promise<unknown> | null {
  const now = svc.now()
  if (auth.lastUsedAt !== null && now - auth.lastUsedAt < TOUCH_INTERVAL_MS) return null
  return svc.db
    .prepare('UPDATE api_keys SET last_used_at = ? WHERE key_id = ?')
    .bind(now, auth.keyId)
    .run()
}

function parseScopes(value: string): Scope[] {
  return value.split(',').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s))
}
