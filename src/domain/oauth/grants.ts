import { and, desc, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import type { Scope } from '../../schema/requests'
import {
  deleteSome,
  prepared,
  type Bindable,
  type Database,
  type Placeholders,
} from '../../storage/db'
import { members, oauthGrants, oauthSecrets, users, workspaces } from '../../storage/schema'
import { iso, isoOrNull, type Services } from '../services'
import { type Actor } from '../actor'
import type { ActsIn } from '../keys'
import { roleIn } from '../workspaces/members'
import { announceAudit, auditActorOf, grantsEnded, recordOf } from '../audit/record'
import { rolesWith } from '../workspaces/roles'

// Connected apps (docs/agents.md): the grants a person gave chat apps through the
// OAuth server, as D1 knows them. The OAuth library keeps each grant's tokens in KV, which is
// eventually consistent; this module decides whether a grant still stands, so that revoking one
// is seen at once everywhere. Its one-time secrets are oauth-secrets.ts's.

/** The OAuth scopes a chat app can be granted: reading, and changing (which includes reading). */
export const OAUTH_SCOPES = ['canvas:read', 'canvas:write'] as const
export type OAuthScope = (typeof OAUTH_SCOPES)[number]

/** A grant stands this long after its last refresh; an app that stops refreshing is let go. */
export const GRANT_IDLE_MS = 30 * 24 * 3600_000
/** An approved request whose code is never exchanged stands no longer than the code. */
export const CODE_TTL_MS = 10 * 60_000
// last_used_at is written at most once a minute per grant, off the request's critical path.
const TOUCH_INTERVAL_MS = 60_000
// Revoked and ended grants are kept this long (the sweep then deletes them and their secrets).
const GRANT_RETENTION_MS = 30 * 24 * 3600_000

/** The scopes a request names (none: both), or what is wrong with them. */
export function askedScopes(asked: readonly string[]): OAuthScope[] | string {
  const known = (s: string): s is OAuthScope => (OAUTH_SCOPES as readonly string[]).includes(s)
  const unknown = asked.find((s) => !known(s))
  if (unknown !== undefined) {
    return `unknown scope ${unknown}: the scopes are ${OAUTH_SCOPES.join(' ')}`
  }
  return asked.length ? asked.filter(known) : [...OAUTH_SCOPES]
}

/** The scopes of the access a person chose on a consent page; without a choice, those asked. */
export function chosenScopes(access: string | null, asked: OAuthScope[]): OAuthScope[] {
  if (access === 'read') return ['canvas:read']
  if (access === 'write') return ['canvas:read', 'canvas:write']
  return asked
}

/** The API's scopes for the OAuth scopes granted: writing includes reading. */
export function apiScopes(scopes: readonly string[]): Scope[] {
  return scopes.includes('canvas:write') ? ['read', 'write'] : ['read']
}

/**
 * A grant as the OAuth library files it: by its id and a subject of its own (oauthGrants.subject),
 * which is what removing its records there takes.
 */
export type LibraryGrant = { grantId: string; subject: string }

/** The subject of a grant's row: its own, or for a grant older than subjects, its user's id. */
export const subjectOf = sql<string>`COALESCE(${oauthGrants.subject}, ${oauthGrants.userId})`

export type NewGrant = {
  grantId: string
  /** The subject it was filed under with the library (a random id, never the person's). */
  subject: string
  clientId: string
  clientName: string
  redirectUri: string
  scopes: Scope[]
  /** SHA-256 of the authorization code the grant starts with. */
  codeHash: string
}

/**
 * Records a grant just approved, with its code. An earlier grant of the same person to the same
 * app at the same redirect URI is ended (re-authorizing replaces a connection rather than adding
 * one); they are answered, for their tokens to be removed too.
 */
export async function recordGrant(
  svc: Services,
  actor: Actor,
  grant: NewGrant,
): Promise<LibraryGrant[]> {
  const now = svc.now()
  const db = svc.db
  const sameConnection = and(
    eq(oauthGrants.userId, actor.userId),
    eq(oauthGrants.workspaceId, actor.workspaceId),
    eq(oauthGrants.clientId, grant.clientId),
    eq(oauthGrants.redirectUri, grant.redirectUri),
  )
  const [replaced, replacedEvents, , recorded] = await db.batch([
    db
      .update(oauthGrants)
      .set(ended(now))
      .where(and(sameConnection, isNull(oauthGrants.revokedAt)))
      .returning({ grantId: oauthGrants.grantId, subject: subjectOf }),
    grantsEnded(
      svc,
      and(sameConnection, eq(oauthGrants.revokedAt, now))!,
      'replaced',
      auditActorOf(actor),
    ),
    db.insert(oauthGrants).values({
      grantId: grant.grantId,
      userId: actor.userId,
      subject: grant.subject,
      workspaceId: actor.workspaceId,
      clientId: grant.clientId,
      clientName: grant.clientName,
      redirectUri: grant.redirectUri,
      scopes: grant.scopes.join(','),
      role: roleIn(db, actor.workspaceId, actor.userId),
      createdAt: now,
      lastUsedAt: null,
      expiresAt: now + CODE_TTL_MS,
      revokedAt: null,
    }),
    recordOf(svc, actor, {
      action: 'oauth.connected',
      target: { type: 'app', id: grant.grantId },
      details: { app: grant.clientName, client_id: grant.clientId, scopes: grant.scopes },
    }),
    db
      .insert(oauthSecrets)
      .values({ secretHash: grant.codeHash, grantId: grant.grantId, kind: 'code', createdAt: now }),
  ])
  announceAudit(svc, replacedEvents, recorded)
  await Promise.all(
    replaced.map((r) => svc.access?.end(actor.userId, { tag: `grant:${r.grantId}` })),
  )
  return replaced
}

/**
 * Ends a grant, by the app itself (its token revoked) or the service (a secret used twice):
 * recorded as the app's disconnection, and its waits end before this returns.
 */
export async function endGrant(
  svc: Services,
  grantId: string,
  reason: 'revoked' | 'secret_reused',
) {
  const now = svc.now()
  const [ended_, recorded] = await svc.db.batch([
    svc.db
      .update(oauthGrants)
      .set(ended(now))
      .where(and(eq(oauthGrants.grantId, grantId), isNull(oauthGrants.revokedAt)))
      .returning({ userId: oauthGrants.userId }),
    grantsEnded(
      svc,
      and(eq(oauthGrants.grantId, grantId), eq(oauthGrants.revokedAt, now))!,
      reason,
    ),
  ])
  announceAudit(svc, recorded)
  for (const { userId } of ended_) await svc.access?.end(userId, { tag: `grant:${grantId}` })
}

/** A revoked grant's expiry is its revocation too: the sweep finds ended grants by one index. */
const ended = (now: number) => ({ revokedAt: now, expiresAt: now })

/** A grant neither revoked nor expired, as a condition. */
export const standing = (now: Bindable<number>) =>
  and(isNull(oauthGrants.revokedAt), gt(oauthGrants.expiresAt, now))

/**
 * The standing grant with this id, as a statement. `db` should reach the primary database: a
 * read replica may not have seen a revocation yet.
 */
export const grantStatement = (db: Database, grantId: string, now: number) =>
  grantLookup(db, { grantId, now })

const grantLookup = prepared((db, p: Placeholders<{ grantId: string; now: number }>) =>
  db
    .select({
      userId: oauthGrants.userId,
      workspaceId: oauthGrants.workspaceId,
      clientId: oauthGrants.clientId,
      clientName: oauthGrants.clientName,
      scopes: oauthGrants.scopes,
      lastUsedAt: oauthGrants.lastUsedAt,
      // As a key's, the person's role at this moment bounds the grant (domain/keys.ts).
      role: oauthGrants.role,
      email: users.email,
      displayName: users.displayName,
    })
    .from(oauthGrants)
    .innerJoin(users, eq(users.userId, oauthGrants.userId))
    .where(and(eq(oauthGrants.grantId, p('grantId')), standing(p('now')))),
)

export type GrantRow = ReturnType<typeof grantStatement>['_']['result'][number]

/** Returns the write to run after the response, or null when the stored time is recent enough. */
export function touchGrant(svc: Services, actor: Actor): Promise<unknown> | null {
  const { grantId, lastUsedAt } = actor.by
  const now = svc.now()
  if (!grantId || (lastUsedAt != null && now - lastUsedAt < TOUCH_INTERVAL_MS)) return null
  return svc.db
    .update(oauthGrants)
    .set({ lastUsedAt: now })
    .where(eq(oauthGrants.grantId, grantId))
    .run()
}

export type ConnectedApp = {
  grant_id: string
  name: string
  client_id: string
  scopes: Scope[]
  created_at: string
  last_used_at: string | null
  acts_in: ActsIn
}

/**
 * The person's standing grants in every workspace they are still a member of, each with the
 * workspace it acts in, newest first.
 */
export async function listConnectedApps(svc: Services, userId: string): Promise<ConnectedApp[]> {
  const rows = await svc.db
    .select({
      grantId: oauthGrants.grantId,
      clientName: oauthGrants.clientName,
      clientId: oauthGrants.clientId,
      scopes: oauthGrants.scopes,
      createdAt: oauthGrants.createdAt,
      lastUsedAt: oauthGrants.lastUsedAt,
      workspaceId: workspaces.workspaceId,
      workspace: workspaces.name,
    })
    .from(oauthGrants)
    .innerJoin(workspaces, eq(workspaces.workspaceId, oauthGrants.workspaceId))
    .innerJoin(
      members,
      and(eq(members.workspaceId, oauthGrants.workspaceId), eq(members.userId, oauthGrants.userId)),
    )
    .where(and(eq(oauthGrants.userId, userId), standing(svc.now()), isNull(workspaces.deletedAt)))
    .orderBy(desc(oauthGrants.createdAt), oauthGrants.grantId)
  return rows.map((r) => ({
    grant_id: r.grantId,
    name: r.clientName,
    client_id: r.clientId,
    scopes: r.scopes.split(',') as Scope[],
    created_at: iso(r.createdAt),
    last_used_at: isoOrNull(r.lastUsedAt),
    acts_in: { workspace_id: r.workspaceId, name: r.workspace },
  }))
}

/** Ends one of the person's grants, from now on; answers the app's name and the grant. */
export async function revokeConnectedApp(svc: Services, actor: Actor, grantId: string) {
  const [[row], recorded] = await svc.db.batch([
    svc.db
      .update(oauthGrants)
      .set(ended(svc.now()))
      .where(
        and(
          eq(oauthGrants.grantId, grantId),
          eq(oauthGrants.userId, actor.userId),
          eq(oauthGrants.workspaceId, actor.workspaceId),
          isNull(oauthGrants.revokedAt),
        ),
      )
      .returning({ name: oauthGrants.clientName, subject: subjectOf }),
    recordOf(svc, actor, {
      action: 'oauth.disconnected',
      target: { type: 'app', id: grantId },
      details: {
        app: sql<string>`(SELECT ${oauthGrants.clientName} FROM ${oauthGrants} WHERE ${oauthGrants.grantId} = ${grantId})`,
        reason: 'disconnected',
      },
    }),
  ])
  if (!row) throw new AppError('not_found', 'grant_id: no such connected app')
  announceAudit(svc, recorded)
  await svc.access?.end(actor.userId, { tag: `grant:${grantId}` })
  return { name: row.name, grant: { grantId, subject: row.subject } satisfies LibraryGrant }
}

/** Deletes up to `limit` grants that ended a while ago, with their secrets; answers how many. */
export async function sweepGrants(svc: Services, now: number, limit: number): Promise<number> {
  const old = lte(oauthGrants.expiresAt, now - GRANT_RETENTION_MS)
  return deleteSome(svc.db, oauthGrants, oauthGrants.grantId, old, limit)
}

// Scopes are stored as the API's comma-separated list; instr has no builder equivalent.
const writes = sql`instr(',' || ${oauthGrants.scopes} || ',', ',write,') > 0`

/**
 * The standing grant with the `write` scope, as the condition an idempotency claim made under an
 * access token rides on (domain/idempotency.ts), as a key's claim rides on its live key.
 */
export const liveWriteGrant = (grantId: Bindable<string>, now: Bindable<number>) =>
  and(liveGrant(grantId, now), writes, inArray(oauthGrants.role, rolesWith('write')))

/** The standing grant with this id, as a condition. */
export const liveGrant = (grantId: Bindable<string>, now: Bindable<number>) =>
  and(eq(oauthGrants.grantId, grantId), standing(now))
