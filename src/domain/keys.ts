import { and, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm'
import { AppError } from '../lib/errors'
import { newId, randomBase62, sha256Hex } from '../lib/crypto'
import { SCOPES, type Scope } from '../schema/requests'
import type { Key } from '../schema/responses'
import { prepared, type Bindable, type Database, type Placeholders } from '../storage/db'
import { apiKeys, members, users, workspaces } from '../storage/schema'
import { isoOrNull, iso, type Services } from './services'
import { type Actor } from './actor'
import { roleIn } from './workspaces/members'
import { announceAudit, recordOf } from './audit/record'
import { allows, requireRole, rolesWith } from './workspaces/roles'

const KEY_PATTERN = /^svc_[A-Za-z0-9]{32,128}$/
// last_used_at is written at most once a minute per key, off the request's critical path.
const TOUCH_INTERVAL_MS = 60_000

const KEY_FIELDS = {
  keyId: apiKeys.keyId,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  scopes: apiKeys.scopes,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
}

type KeyRow = Pick<typeof apiKeys.$inferSelect, keyof typeof KEY_FIELDS>

export function presentKey(row: KeyRow): Key {
  return {
    key_id: row.keyId,
    name: row.name,
    prefix: row.prefix,
    scopes: parseScopes(row.scopes),
    created_at: iso(row.createdAt),
    last_used_at: isoOrNull(row.lastUsedAt),
  }
}

/** `write` implies `read`; the stored list always says so explicitly. */
export function normalizeScopes(scopes: Scope[]): Scope[] {
  return scopes.includes('write') ? ['read', 'write'] : ['read']
}

/**
 * A new key of the actor's for their workspace. Its role is read from their membership as it is
 * made; a viewer cannot make a key that writes.
 */
export async function createKey(
  svc: Services,
  actor: Actor,
  name: string,
  scopes: Scope[],
  origin: KeyOrigin = 'person',
) {
  if (scopes.includes('write')) requireRole(actor, 'write')
  const { secret, row, keyHash } = await newKey(svc, name, scopes)
  const [, recorded] = await svc.db.batch([
    svc.db.insert(apiKeys).values({
      ...row,
      workspaceId: actor.workspaceId,
      userId: actor.userId,
      keyHash,
      role: roleIn(svc.db, actor.workspaceId, actor.userId),
      origin,
    }),
    recordOf(svc, actor, keyCreated(row)),
  ])
  announceAudit(svc, recorded)
  // The secret leaves the server only in this response.
  return { ...presentKey(row), key: secret }
}

/** How a key was made: by its person, or by the CLI's sign-in, which binds it to its workspace. */
export type KeyOrigin = 'person' | 'exchange' | 'device'

/** A new key's secret, its stored hash, and its row but for whose it is. */
export async function newKey(svc: Services, name: string, scopes: Scope[]) {
  const secret = 'svc_' + randomBase62(40)
  const row: KeyRow = {
    keyId: newId(),
    name,
    prefix: secret.slice(0, 12),
    scopes: normalizeScopes(scopes).join(','),
    createdAt: svc.now(),
    lastUsedAt: null,
  }
  return { secret, row, keyHash: await sha256Hex(secret) }
}

/** The audit entry of a key made. */
export const keyCreated = (row: KeyRow) =>
  ({
    action: 'key.created',
    target: { type: 'key', id: row.keyId },
    details: { name: row.name, scopes: parseScopes(row.scopes) },
  }) as const

export async function listKeys(svc: Services, actor: Actor) {
  const rows = await svc.db
    .select(KEY_FIELDS)
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.workspaceId, actor.workspaceId),
        eq(apiKeys.userId, actor.userId),
        isNull(apiKeys.revokedAt),
      ),
    )
    .orderBy(desc(apiKeys.createdAt), apiKeys.keyId)
  return rows.map(presentKey)
}

/** Where a key or an app of the person's acts: its workspace, by id and name. */
export type ActsIn = { workspace_id: string; name: string }

/**
 * The person's live keys in every workspace they are still a member of, each with the workspace
 * it acts in, newest first: Settings shows them all, since a key made in one workspace is easily
 * forgotten from another.
 */
export async function listOwnKeys(svc: Services, userId: string) {
  const rows = await svc.db
    .select({ ...KEY_FIELDS, workspaceId: workspaces.workspaceId, workspace: workspaces.name })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.workspaceId, apiKeys.workspaceId))
    .innerJoin(
      members,
      and(eq(members.workspaceId, apiKeys.workspaceId), eq(members.userId, apiKeys.userId)),
    )
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt), isNull(workspaces.deletedAt)))
    .orderBy(desc(apiKeys.createdAt), apiKeys.keyId)
  return rows.map((row) => ({
    ...presentKey(row),
    acts_in: { workspace_id: row.workspaceId, name: row.workspace } satisfies ActsIn,
  }))
}

/** Revokes one of the actor's keys, or as an admin anyone's of the workspace; answers its name. */
export async function revokeKey(svc: Services, actor: Actor, keyId: string): Promise<string> {
  const [revoked, recorded] = await svc.db.batch([
    svc.db
      .update(apiKeys)
      .set({ revokedAt: svc.now() })
      .where(
        and(
          eq(apiKeys.keyId, keyId),
          eq(apiKeys.workspaceId, actor.workspaceId),
          allows(actor.role, 'admin') ? undefined : eq(apiKeys.userId, actor.userId),
          isNull(apiKeys.revokedAt),
        ),
      )
      .returning({ name: apiKeys.name, userId: apiKeys.userId }),
    recordOf(svc, actor, {
      action: 'key.revoked',
      target: { type: 'key', id: keyId },
      details: {
        name: sql<string>`(SELECT ${apiKeys.name} FROM ${apiKeys} WHERE ${apiKeys.keyId} = ${keyId})`,
      },
    }),
  ])
  if (revoked.length !== 1) throw new AppError('not_found', 'key_id: no such API key')
  announceAudit(svc, recorded)
  // Its waits end before the answer.
  await svc.access?.end(revoked[0].userId, { tag: `key:${keyId}` })
  return revoked[0].name
}

/**
 * The live key whose secret this is, by its stored hash, with its row's person: for ending it by
 * holding it (RFC 7009, `svc logout`), which is recorded as the key's own doing.
 */
export async function keyOfSecret(svc: Services, secret: string) {
  const keyHash = await keyHashOf(secret)
  return keyHash ? ((await keyStatement(svc, keyHash).get()) ?? null) : null
}

/**
 * Why the key of this hash opens nothing, when it once did: null for a key never made, or revoked
 * while its person is still a member; `removed` when its person is no longer a member of its
 * workspace (removed, or left), or the workspace is gone. A refusal's words, read only then.
 */
export async function whyKeyEnded(svc: Services, keyHash: string) {
  const row = await svc.db
    .select({
      workspace: workspaces.name,
      deletedAt: workspaces.deletedAt,
      member: members.role,
    })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.workspaceId, apiKeys.workspaceId))
    .leftJoin(
      members,
      and(eq(members.workspaceId, apiKeys.workspaceId), eq(members.userId, apiKeys.userId)),
    )
    .where(and(eq(apiKeys.keyHash, keyHash), isNotNull(apiKeys.revokedAt)))
    .get()
  if (!row) return null
  return { workspace: row.workspace, removed: row.member === null || row.deletedAt !== null }
}

/** The stored hash of a presented key, or null when it cannot be a key at all. */
export async function keyHashOf(secret: string): Promise<string | null> {
  return KEY_PATTERN.test(secret) ? sha256Hex(secret) : null
}

/**
 * The lookup of a key, as a statement, so a route can batch it with its own query and answer in
 * one D1 round trip: the key row (its workspace, and the person's role there, kept on it) and its
 * person's row, who the request acts for. Every request pays for the rows it reads (D1 bills
 * them): the workspace's name is read only where shown (keyOwner, a refusal).
 */
export function keyStatement(svc: Services, keyHash: string) {
  return keyLookup(svc.db, { keyHash })
}

/**
 * The live (not revoked) API key with this hash. A statement batched with the key's lookup runs
 * before the key is judged: scoped to the key's workspace, it reads nothing for an unknown or
 * revoked key (a removed member's keys are revoked as they go), and one that writes requires the
 * `write` scope and a role that writes as well.
 */
export const liveKey = (keyHash: Bindable<string>) =>
  and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt))

export const liveWriteKey = (keyHash: Bindable<string>) =>
  and(
    liveKey(keyHash),
    // Scopes are stored as a comma-separated list; instr has no builder equivalent.
    sql`instr(',' || ${apiKeys.scopes} || ',', ',write,') > 0`,
    inArray(apiKeys.role, rolesWith('write')),
  )

/** The person of the live key with this hash, as a value (see liveKey). */
export const keyPerson = (db: Database, keyHash: Bindable<string>) =>
  sql<string>`(${db.select({ userId: apiKeys.userId }).from(apiKeys).where(liveKey(keyHash))})`

/** The workspace of the live key with this hash, as a subquery (see liveKey). */
export const keyWorkspace = (db: Database, keyHash: Bindable<string>) =>
  db.select({ workspaceId: apiKeys.workspaceId }).from(apiKeys).where(liveKey(keyHash))

const keyLookup = prepared((db, p: Placeholders<{ keyHash: string }>) =>
  db
    .select({
      keyId: apiKeys.keyId,
      name: apiKeys.name,
      scopes: apiKeys.scopes,
      lastUsedAt: apiKeys.lastUsedAt,
      userId: apiKeys.userId,
      workspaceId: apiKeys.workspaceId,
      // The person's role at this moment: a key does at most what it allows.
      role: apiKeys.role,
      origin: apiKeys.origin,
      email: users.email,
      displayName: users.displayName,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.userId, apiKeys.userId))
    .where(liveKey(p('keyHash'))),
)

export type KeyLookupRow = ReturnType<typeof keyStatement>['_']['result'][number]

/** The email of the key's user and the name of its workspace. */
export async function keyOwner(svc: Services, actor: Actor) {
  const row = await svc.db
    .select({ email: users.email, workspaceName: workspaces.name })
    .from(users)
    .innerJoin(workspaces, eq(workspaces.workspaceId, actor.workspaceId))
    .where(eq(users.userId, actor.userId))
    .get()
  if (!row) throw new AppError('unauthorized', 'the key’s user or workspace no longer exists')
  return row
}

/** Returns the write to run after the response, or null when the stored time is recent enough. */
export function touchKey(svc: Services, actor: Actor): Promise<unknown> | null {
  const { keyId, lastUsedAt } = actor.by
  const now = svc.now()
  if (!keyId || (lastUsedAt != null && now - lastUsedAt < TOUCH_INTERVAL_MS)) return null
  return svc.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.keyId, keyId)).run()
}

export function parseScopes(value: string): Scope[] {
  return value.split(',').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s))
}
