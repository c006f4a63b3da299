import { and, asc, eq, exists, isNull, not, sql, type AnyColumn } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import type { Role } from '../../schema/requests'
import type { Database } from '../../storage/db'
import { apiKeys, members, oauthGrants, sessions, users, workspaces } from '../../storage/schema'
import { iso, type Services } from '../services'
import { type Actor } from '../actor'
import { announceAudit, recordOf } from '../audit/record'
import { atLeast, requireRole } from './roles'

// The members of a workspace and their roles. A member's role is copied onto their keys and grants
// for the workspace (api_keys.role, oauth_grants.role) in the same batch as every change of it,
// and their removal revokes those in that batch: D1 runs a batch as one transaction, so no request
// sees the member gone and their key still working, or the role changed and the key's not.

export const MAX_MEMBERS = 1000

export type Member = { user_id: string; email: string; role: Role; joined_at: string }

/** The member row of `userId` in `workspaceId` (a value, or a column of the statement around). */
const memberRow = (workspaceId: string | AnyColumn, userId: string) =>
  and(eq(members.workspaceId, workspaceId), eq(members.userId, userId))

/** The role of `userId` in `workspaceId`, as a value a statement selects or inserts. */
export const roleIn = (db: Database, workspaceId: string, userId: string) =>
  sql<Role>`(${db.select({ role: members.role }).from(members).where(memberRow(workspaceId, userId))})`

/** That `userId` is a member of `workspaceId`, as a condition of a statement. */
export const isMember = (db: Database, workspaceId: string | AnyColumn, userId: string) =>
  exists(
    db
      .select({ one: sql`1` })
      .from(members)
      .where(memberRow(workspaceId, userId)),
  )

/** The role of `userId` in `workspaceId`, or undefined when they are not a member. */
export async function findRole(svc: Services, workspaceId: string, userId: string) {
  const row = await svc.db
    .select({ role: members.role })
    .from(members)
    .where(memberRow(workspaceId, userId))
    .get()
  return row?.role
}

export const workspaceNotFound = () =>
  new AppError('not_found', 'workspace_id: no workspace of yours has this id')

export const memberNotFound = () =>
  new AppError('member_not_found', 'user_id: no member of this workspace has this id')

export async function listMembers(svc: Services, actor: Actor): Promise<Member[]> {
  const rows = await svc.db
    .select({
      userId: members.userId,
      email: users.email,
      role: members.role,
      at: members.joinedAt,
    })
    .from(members)
    .innerJoin(users, eq(users.userId, members.userId))
    .where(eq(members.workspaceId, actor.workspaceId))
    .orderBy(asc(members.joinedAt), asc(members.userId))
    .limit(MAX_MEMBERS)
  return rows.map((r) => ({
    user_id: r.userId,
    email: r.email,
    role: r.role,
    joined_at: iso(r.at),
  }))
}

/** The member's current role, or 404. */
async function roleOf(svc: Services, workspaceId: string, userId: string): Promise<Role> {
  const role = await findRole(svc, workspaceId, userId)
  if (!role) throw memberNotFound()
  return role
}

/**
 * Who may change or remove the member holding `role`, beyond the admin role their route needs:
 * for an owner (or to make one), an owner. A person may always remove themself (leave).
 */
function mayManage(actor: Actor, target: { userId: string; role: Role }, newRole?: Role) {
  if (target.userId === actor.userId && newRole === undefined) return
  if (target.role === 'owner' || newRole === 'owner') requireRole(actor, 'owner')
}

const lastOwner = () =>
  new AppError(
    'last_owner',
    'a workspace keeps at least one owner: make another member an owner first',
  )

/** The row of `userId`, unless it holds the workspace's only owner. */
const notLastOwner = (db: Database, workspaceId: string, userId: string) =>
  and(
    eq(members.workspaceId, workspaceId),
    eq(members.userId, userId),
    sql`NOT (${members.role} = 'owner' AND ${db.$count(
      members,
      and(eq(members.workspaceId, workspaceId), eq(members.role, 'owner')),
    )} = 1)`,
  )

/** Changes a member's role; their keys and grants for the workspace follow in the same batch. */
export async function changeRole(svc: Services, actor: Actor, userId: string, role: Role) {
  const workspaceId = actor.workspaceId
  const current = await roleOf(svc, workspaceId, userId)
  mayManage(actor, { userId, role: current }, role)
  const db = svc.db
  const [changed, recorded] = await db.batch([
    db
      .update(members)
      .set({ role })
      .where(and(notLastOwner(db, workspaceId, userId), eq(members.role, current)))
      .returning({ role: members.role }),
    recordOf(svc, actor, {
      action: 'member.role_changed',
      target: { type: 'member', id: userId },
      details: { email: emailOf(db, userId), from: current, to: role },
    }),
    ...followRole(db, workspaceId, userId),
  ])
  if (changed.length === 0) {
    // Either the only owner, or the role changed in between: asked again, the answer is exact.
    const now = await roleOf(svc, workspaceId, userId)
    if (now === 'owner' && role !== 'owner') throw lastOwner()
    throw new AppError('conflict', `the member's role changed meanwhile to ${now}; try again`)
  }
  announceAudit(svc, recorded)
  return { user_id: userId, role }
}

/** The member's keys and grants for the workspace take their role as it now stands. */
function followRole(db: Database, workspaceId: string, userId: string) {
  const role = roleIn(db, workspaceId, userId)
  return [
    db
      .update(apiKeys)
      .set({ role })
      .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.userId, userId))),
    db
      .update(oauthGrants)
      .set({ role })
      .where(and(eq(oauthGrants.workspaceId, workspaceId), eq(oauthGrants.userId, userId))),
  ] as const
}

/**
 * Removes a member (or, for themself, leaves). In the same batch, unless they are still a member
 * (the last owner): their keys and grants for the workspace are revoked and their sessions there
 * go to their personal workspace. Their canvases stay with the workspace.
 */
export async function removeMember(svc: Services, actor: Actor, userId: string) {
  const workspaceId = actor.workspaceId
  const current = await roleOf(svc, workspaceId, userId)
  mayManage(actor, { userId, role: current })
  const db = svc.db
  const now = svc.now()
  const gone = not(isMember(db, workspaceId, userId))
  const [removed, recorded] = await db.batch([
    db
      .delete(members)
      .where(notLastOwner(db, workspaceId, userId))
      .returning({ role: members.role }),
    recordOf(svc, actor, {
      action: 'member.removed',
      target: { type: 'member', id: userId },
      details: { email: emailOf(db, userId), role: current, left: userId === actor.userId },
    }),
    db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(
        and(
          eq(apiKeys.workspaceId, workspaceId),
          eq(apiKeys.userId, userId),
          isNull(apiKeys.revokedAt),
          gone,
        ),
      ),
    db
      .update(oauthGrants)
      .set({ revokedAt: now, expiresAt: now })
      .where(
        and(
          eq(oauthGrants.workspaceId, workspaceId),
          eq(oauthGrants.userId, userId),
          isNull(oauthGrants.revokedAt),
          gone,
        ),
      ),
    db
      .update(sessions)
      .set({
        workspaceId: sql`(${personalWorkspace(db, userId)})`,
        // Told on their next page, unless they left themself.
        leftWorkspace:
          userId === actor.userId
            ? null
            : sql`(${db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.workspaceId, workspaceId))})`,
      })
      .where(and(eq(sessions.workspaceId, workspaceId), eq(sessions.userId, userId), gone)),
  ])
  if (removed.length === 0) throw lastOwner()
  announceAudit(svc, recorded)
  // What they had open there closes now: their sockets, their waits, by any credential.
  await svc.access?.end(userId, { workspaceId })
  return { user_id: userId, role: removed[0].role }
}

/** The personal workspace of `userId`, as a subquery. */
export const personalWorkspace = (db: Database, userId: string | AnyColumn) =>
  db
    .select({ workspaceId: workspaces.workspaceId })
    .from(workspaces)
    .where(and(eq(workspaces.ownerUserId, userId as string), workspaces.personal))
    .orderBy(asc(workspaces.createdAt))
    .limit(1)

/**
 * Whether `role` may be given by `actor` (an invite, a change), beyond the admin role their route
 * needs: never above their own.
 */
export function mayGive(actor: Actor, role: Role) {
  if (!atLeast(actor.role, role)) requireRole(actor, 'owner')
}

/** A person's email, as a statement reads it (the audit log's details). */
export const emailOf = (db: Database, userId: string) =>
  sql<string>`(${db.select({ email: users.email }).from(users).where(eq(users.userId, userId))})`
