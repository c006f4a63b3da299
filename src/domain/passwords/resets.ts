import { and, eq, exists, gt, inArray, lte, ne, not, sql } from 'drizzle-orm'
import { localPart } from '../../lib/names'
import { alias } from 'drizzle-orm/sqlite-core'
import { AppError } from '../../lib/errors'
import { hashPassword, randomBase62, sha256Hex } from '../../lib/crypto'
import { deleteSome, one } from '../../storage/db'
import { members, passwordResets, sessions, users, workspaces } from '../../storage/schema'
import type { Role } from '../../schema/requests'
import { iso, type Services } from '../services'
import { type Actor } from '../actor'
import { announceAudit, auditEveryWorkspace, recordOf } from '../audit/record'
import { memberNotFound } from '../workspaces/members'
import { atLeast, outranks } from '../workspaces/roles'
import { openSession, requirePasswordLogin, sessionRowOf } from '../users'

// Reset links (docs/teams.md#when-someone-forgets-their-password): an admin of a shared workspace
// makes a one-time link for a member who forgot their password; no email is sent, the admin hands
// it over. A password opens the whole account, every workspace of it: so the maker must outrank the
// person in every shared workspace the person is in, or the link would open more than the maker
// governs. The token is 32 base-62 characters and only its SHA-256 is kept.

export const RESET_TTL_MS = 24 * 3600_000
const TOKEN = /^[A-Za-z0-9]{32}$/

export const resetNotFound = () =>
  new AppError(
    'not_found',
    'this reset link is used, replaced, expired or unknown: ask an admin for a new one',
  )

/**
 * A new reset link for the member `userId` of the actor's workspace, replacing any earlier one.
 * Answers its token (shown once), when it expires, and whom it is for.
 */
export async function createResetLink(svc: Services, actor: Actor, userId: string) {
  requirePasswordLogin(svc)
  if (userId === actor.userId) {
    throw new AppError('forbidden', 'change your own password in Settings, with the current one')
  }
  const email = await requireOutranks(svc, actor, userId)
  const token = randomBase62(32)
  const now = svc.now()
  const expiresAt = now + RESET_TTL_MS
  const db = svc.db
  const [, , recorded] = await db.batch([
    db.delete(passwordResets).where(eq(passwordResets.userId, userId)),
    db.insert(passwordResets).values({
      tokenHash: await sha256Hex(token),
      userId,
      workspaceId: actor.workspaceId,
      createdBy: actor.userId,
      createdAt: now,
      expiresAt,
    }),
    recordOf(svc, actor, {
      action: 'auth.password_reset_link',
      target: { type: 'member', id: userId },
      details: { email, expires_at: iso(expiresAt) },
    }),
  ])
  announceAudit(svc, recorded)
  return { token, expiresAt, email }
}

/**
 * The maker must be an admin of the workspace ranking above the person, and so in every other
 * workspace the person belongs to that anyone else does too: a personal workspace is no exception,
 * since it takes invites like any other. Only a workspace of the person alone opens nothing of
 * anyone else's. Answers the person's email.
 */
async function requireOutranks(svc: Services, actor: Actor, userId: string) {
  const db = svc.db
  const others = alias(members, 'others')
  const shared = exists(
    db
      .select(one)
      .from(others)
      .where(and(eq(others.workspaceId, members.workspaceId), ne(others.userId, userId))),
  )
  const theirs = await db
    .select({ workspaceId: members.workspaceId, role: members.role, email: users.email })
    .from(members)
    .innerJoin(users, eq(users.userId, members.userId))
    .where(and(eq(members.userId, userId), shared))
  const here = theirs.find((m) => m.workspaceId === actor.workspaceId)
  if (!here) throw memberNotFound()
  const mine = await db
    .select({ workspaceId: members.workspaceId, role: members.role })
    .from(members)
    .where(
      and(
        eq(members.userId, actor.userId),
        inArray(
          members.workspaceId,
          theirs.map((m) => m.workspaceId),
        ),
      ),
    )
  const myRole = new Map<string, Role>(mine.map((m) => [m.workspaceId, m.role]))
  const above = (m: { workspaceId: string; role: Role }) => {
    const role = myRole.get(m.workspaceId)
    return role !== undefined && atLeast(role, 'admin') && outranks(role, m.role)
  }
  if (!above(here)) {
    throw new AppError(
      'forbidden',
      'only a member of a higher role may make a reset link: an admin for editors and viewers, an owner for admins',
    )
  }
  if (!theirs.every(above)) {
    throw new AppError(
      'forbidden',
      'this person is in other workspaces where you do not rank above them: an owner of those can make the link',
    )
  }
  return here.email
}

/** A reset link that still works, as a condition: unused (it is deleted when used) and in time. */
const standingLink = (hash: string, now: number) =>
  and(eq(passwordResets.tokenHash, hash), gt(passwordResets.expiresAt, now))

/** The link of `token` while it works: whom it is for, and where it came from; else null. */
async function findLink(svc: Services, token: string) {
  if (!TOKEN.test(token)) return null
  const hash = await sha256Hex(token)
  const link = await svc.db
    .select({
      userId: passwordResets.userId,
      workspaceId: passwordResets.workspaceId,
      email: users.email,
    })
    .from(passwordResets)
    .innerJoin(users, eq(users.userId, passwordResets.userId))
    .where(standingLink(hash, svc.now()))
    .get()
  return link ? { ...link, hash } : null
}

/** The person a reset link is for, while it works; null when it cannot be one or no longer works. */
export async function openResetLink(svc: Services, token: string) {
  const link = await findLink(svc, token)
  return link ? { email: link.email } : null
}

/**
 * Sets the person's new password by their link, once: in one batch the link is spent, every
 * session of theirs ends, and each of their workspaces records it; then a session opens for them
 * in the workspace the link came from.
 */
export async function useResetLink(svc: Services, token: string, password: string) {
  requirePasswordLogin(svc)
  const link = await findLink(svc, token)
  if (!link) throw resetNotFound()
  const passwordHash = await hashPassword(password)
  // Every statement holds only while the link does: of two uses at once, one changes anything.
  const db = svc.db
  const standing = exists(
    db
      .select({ one: sql`1` })
      .from(passwordResets)
      .where(standingLink(link.hash, svc.now())),
  )
  const person = {
    kind: 'member',
    userId: link.userId,
    name: link.email,
    person: { name: localPart(link.email), email: link.email },
  } as const
  const [changed, recorded] = await db.batch([
    db
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.userId, link.userId), standing))
      .returning({ userId: users.userId }),
    // Written only after the password changed (the statement before changed a row).
    auditEveryWorkspace(
      svc,
      link.userId,
      person,
      { action: 'auth.password_reset', target: { type: 'person', id: link.userId } },
      'changed',
    ),
    db.delete(sessions).where(and(eq(sessions.userId, link.userId), standing)),
    db.delete(passwordResets).where(eq(passwordResets.userId, link.userId)),
  ])
  if (changed.length !== 1) throw resetNotFound()
  announceAudit(svc, recorded)
  await svc.access?.end(link.userId, { sessions: true })
  const row = await sessionRowOf(svc, link.userId, link.workspaceId)
  if (!row) throw resetNotFound()
  return openSession(svc, row, 'password')
}

/** Expired links, deleted by the sweep. */
export const sweepResetLinks = (svc: Services, now: number, limit: number) =>
  deleteSome(
    svc.db,
    passwordResets,
    passwordResets.tokenHash,
    lte(passwordResets.expiresAt, now),
    limit,
  )
