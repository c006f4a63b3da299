import { and, desc, eq, exists, gt, isNull, lte, not, or, sql } from 'drizzle-orm'
import { localPart } from '../../lib/names'
import { AppError } from '../../lib/errors'
import { newId, randomBase62, sha256Hex } from '../../lib/crypto'
import type { Role } from '../../schema/requests'
import { deleteSome, type Bindable, type Database } from '../../storage/db'
import { invites, members, workspaces } from '../../storage/schema'
import { iso, type Services } from '../services'
import { type Actor } from '../actor'
import { announceAudit, auditStatement, recordOf } from '../audit/record'
import { findRole, isMember, MAX_MEMBERS, mayGive } from './members'

// Invites: links that admit one person to a workspace, once, with a role; no email is sent (the
// link is the invite). The token is 32 base-62 characters (190 bits) and only its SHA-256 is kept.

export const MAX_PENDING_INVITES = 100
export const INVITE_TTL_S = 7 * 86400
export const MAX_INVITE_TTL_S = 30 * 86400
// An ended invite answers "no longer valid" this long, then goes.
const INVITE_RETENTION_MS = 30 * 86400_000

const TOKEN = /^[A-Za-z0-9]{32}$/

export type Invite = {
  invite_id: string
  role: Role
  email: string | null
  expires_at: string
  created_at: string
}

export type NewInvite = { role: Role; email?: string; expiresInSeconds?: number }

const FIELDS = {
  inviteId: invites.inviteId,
  role: invites.role,
  email: invites.email,
  expiresAt: invites.expiresAt,
  createdAt: invites.createdAt,
}

const present = (row: {
  inviteId: string
  role: Role
  email: string | null
  expiresAt: number
  createdAt: number
}): Invite => ({
  invite_id: row.inviteId,
  role: row.role,
  email: row.email,
  expires_at: iso(row.expiresAt),
  created_at: iso(row.createdAt),
})

/** Neither used, revoked nor expired. */
const pending = (now: Bindable<number>) =>
  and(isNull(invites.usedAt), isNull(invites.revokedAt), gt(invites.expiresAt, now))

/** A pending invite `hash` that `email` may use, as a condition (a signup it admits). */
export const invitedHere = (db: Database, hash: string, email: string, now: number) =>
  exists(
    db
      .select({ one: sql`1` })
      .from(invites)
      .where(usableBy(hash, email, now)),
  )

/** The pending invite `hash`, for anyone or for `email`. */
const usableBy = (hash: string, email: string, now: number) =>
  and(
    eq(invites.tokenHash, hash),
    pending(now),
    or(isNull(invites.email), eq(invites.email, email)),
  )

export const inviteNotFound = () =>
  new AppError(
    'invite_not_found',
    'this invite is used, revoked, expired or unknown: ask for a new one',
  )

/** The token of an invite link as stored, or null when it cannot be one. */
export const inviteHashOf = async (token: string) => (TOKEN.test(token) ? sha256Hex(token) : null)

/**
 * A new invite to the actor's workspace (admins; an owner's role only by an owner), while the
 * workspace has fewer than MAX_PENDING_INVITES pending: the insert itself holds the limit.
 * Answers the invite and its token, which is shown once.
 */
export async function createInvite(svc: Services, actor: Actor, input: NewInvite) {
  mayGive(actor, input.role)
  const token = randomBase62(32)
  const now = svc.now()
  const row = {
    inviteId: newId(),
    role: input.role,
    email: input.email ?? null,
    expiresAt: now + (input.expiresInSeconds ?? INVITE_TTL_S) * 1000,
    createdAt: now,
  }
  const db = svc.db
  const count = db.$count(invites, and(eq(invites.workspaceId, actor.workspaceId), pending(now)))
  const [made, recorded] = await db.batch([
    db
      .insert(invites)
      .select(
        sql`SELECT ${row.inviteId}, ${actor.workspaceId}, ${await sha256Hex(token)}, ${row.role},
        ${row.email}, ${actor.userId}, ${now}, ${row.expiresAt}, NULL, NULL, NULL
        WHERE ${count} < ${MAX_PENDING_INVITES}`,
      )
      .returning({ inviteId: invites.inviteId }),
    recordOf(svc, actor, {
      action: 'member.invited',
      target: { type: 'invite', id: row.inviteId },
      details: { role: row.role, email: row.email, expires_at: iso(row.expiresAt) },
    }),
  ])
  if (made.length !== 1) {
    throw new AppError(
      'conflict',
      `a workspace has at most ${MAX_PENDING_INVITES} pending invites: revoke one first`,
    )
  }
  announceAudit(svc, recorded)
  return { invite: present(row), token }
}

/** The workspace's pending invites, newest first (admins); their tokens are not kept. */
export async function listInvites(svc: Services, actor: Actor): Promise<Invite[]> {
  const rows = await svc.db
    .select(FIELDS)
    .from(invites)
    .where(and(eq(invites.workspaceId, actor.workspaceId), pending(svc.now())))
    .orderBy(desc(invites.createdAt), desc(invites.inviteId))
    .limit(MAX_PENDING_INVITES)
  return rows.map(present)
}

export async function revokeInvite(svc: Services, actor: Actor, inviteId: string) {
  const now = svc.now()
  const [[row], recorded] = await svc.db.batch([
    svc.db
      .update(invites)
      .set({ revokedAt: now, expiresAt: now })
      .where(
        and(
          eq(invites.inviteId, inviteId),
          eq(invites.workspaceId, actor.workspaceId),
          pending(now),
        ),
      )
      .returning(FIELDS),
    recordOf(svc, actor, {
      action: 'member.invite_revoked',
      target: { type: 'invite', id: inviteId },
    }),
  ])
  if (!row) throw inviteNotFound()
  announceAudit(svc, recorded)
  return present(row)
}

/** What the join page shows of a pending invite: the workspace, the role, the address if any. */
export async function openInvite(svc: Services, token: string) {
  const hash = await inviteHashOf(token)
  const row = hash
    ? await svc.db
        .select({
          workspaceId: invites.workspaceId,
          name: workspaces.name,
          role: invites.role,
          email: invites.email,
        })
        .from(invites)
        .innerJoin(workspaces, eq(workspaces.workspaceId, invites.workspaceId))
        .where(and(eq(invites.tokenHash, hash), pending(svc.now())))
        .get()
    : undefined
  if (!row) throw inviteNotFound()
  return { workspace_id: row.workspaceId, name: row.name, role: row.role, email: row.email }
}

/**
 * The statements that use the invite `hash` for the person `userId` (whose email is `email`) and
 * make them a member, for a batch of their own or of a signup. The invite is used only while it
 * is pending, for its address, the person not yet a member and the workspace under its limit; the
 * member's row is made from the invite so used, so that either both hold or neither does.
 */
export function joinStatements(
  svc: Services,
  hash: string,
  joiner: { userId: string; email: string },
  now: number,
) {
  const db = svc.db
  const used = and(eq(invites.usedBy, joiner.userId), eq(invites.usedAt, now))
  const workspaceMembers = db.$count(members, eq(members.workspaceId, invites.workspaceId))
  return [
    db
      .update(invites)
      // Its expiry is its use: the sweep finds ended invites by that one index.
      .set({ usedAt: now, usedBy: joiner.userId, expiresAt: now })
      .where(
        and(
          usableBy(hash, joiner.email, now),
          not(isMember(db, invites.workspaceId, joiner.userId)),
          sql`${workspaceMembers} < ${MAX_MEMBERS}`,
        ),
      )
      .returning({ workspaceId: invites.workspaceId, role: invites.role }),
    db.insert(members).select(
      sql`SELECT ${invites.workspaceId}, ${joiner.userId}, ${invites.role}, ${now} FROM ${invites}
          WHERE ${invites.tokenHash} = ${hash} AND ${used}`,
    ),
    auditStatement(
      svc,
      sql<string>`(SELECT ${invites.workspaceId} FROM ${invites} WHERE ${invites.tokenHash} = ${hash})`,
      {
        kind: 'member',
        userId: joiner.userId,
        name: joiner.email,
        person: { name: localPart(joiner.email), email: joiner.email },
      },
      {
        action: 'member.joined',
        target: { type: 'member', id: joiner.userId },
        details: {
          email: joiner.email,
          role: sql<string>`(SELECT ${invites.role} FROM ${invites} WHERE ${invites.tokenHash} = ${hash})`,
          invite_id: sql<string>`(SELECT ${invites.inviteId} FROM ${invites} WHERE ${invites.tokenHash} = ${hash})`,
        },
      },
    ),
  ] as const
}

/** Why an invite could not be used by this person, asked after the fact. */
export async function whyNotJoined(
  svc: Services,
  hash: string,
  joiner: { userId: string; email: string },
): Promise<AppError> {
  const row = await svc.db
    .select({ email: invites.email, workspaceId: invites.workspaceId })
    .from(invites)
    .where(and(eq(invites.tokenHash, hash), pending(svc.now())))
    .get()
  if (!row) return inviteNotFound()
  if (row.email !== null && row.email !== joiner.email) {
    return new AppError('forbidden', `this invite is for ${row.email}; sign in with that address`)
  }
  const role = await findRole(svc, row.workspaceId, joiner.userId)
  if (role) return new AppError('conflict', `you are already a ${role} of this workspace`)
  return new AppError('conflict', `this workspace has its ${MAX_MEMBERS} members`)
}

/** Removes invites that ended (used, revoked or expired) over 30 days ago: the sweep's step. */
export async function sweepInvites(svc: Services, now: number, limit: number): Promise<number> {
  const old = lte(invites.expiresAt, now - INVITE_RETENTION_MS)
  return deleteSome(svc.db, invites, invites.inviteId, old, limit)
}

/** Joins the person to the invite's workspace; answers the workspace and the role. */
export async function joinInvite(
  svc: Services,
  token: string,
  joiner: { userId: string; email: string },
) {
  const hash = await inviteHashOf(token)
  if (!hash) throw inviteNotFound()
  const [used, , recorded] = await svc.db.batch(joinStatements(svc, hash, joiner, svc.now()))
  if (used.length === 0) throw await whyNotJoined(svc, hash, joiner)
  announceAudit(svc, recorded)
  return used[0]
}
