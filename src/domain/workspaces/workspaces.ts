import { and, asc, eq, sql } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/crypto'
import type { Role } from '../../schema/requests'
import { value } from '../../storage/db'
import { members, sessions, workspaces } from '../../storage/schema'
import { iso, type Actor, type Services } from '../services'
import { announceAudit, recordOf } from '../audit/record'
import { joinInvite } from './invites'
import { actorIn, isMember, workspaceNotFound } from './members'
import { requireRole } from './roles'

// Workspaces a person belongs to: their personal one (made at signup) and any they made or joined.

export const MAX_WORKSPACES_PER_PERSON = 100

export type Workspace = {
  workspace_id: string
  name: string
  role: Role
  personal: boolean
  created_at: string
}

const FIELDS = {
  workspaceId: workspaces.workspaceId,
  name: workspaces.name,
  role: members.role,
  personal: workspaces.personal,
  createdAt: workspaces.createdAt,
}

const present = (row: {
  workspaceId: string
  name: string
  role: Role
  personal: boolean
  createdAt: number
}): Workspace => ({
  workspace_id: row.workspaceId,
  name: row.name,
  role: row.role,
  personal: row.personal,
  created_at: iso(row.createdAt),
})

/** The workspaces of the person `userId`, their personal one first, then by creation. */
export async function listWorkspaces(svc: Services, userId: string): Promise<Workspace[]> {
  const rows = await svc.db
    .select(FIELDS)
    .from(members)
    .innerJoin(workspaces, eq(workspaces.workspaceId, members.workspaceId))
    .where(eq(members.userId, userId))
    .orderBy(
      sql`${workspaces.personal} DESC`,
      asc(workspaces.createdAt),
      asc(workspaces.workspaceId),
    )
    .limit(MAX_WORKSPACES_PER_PERSON + 1)
  return rows.map(present)
}

/**
 * A new workspace with its maker as owner, in one batch whose inserts hold only while the person
 * belongs to fewer than MAX_WORKSPACES_PER_PERSON: two made at once cannot pass it together.
 */
export async function createWorkspace(svc: Services, userId: string, name: string) {
  const db = svc.db
  const workspaceId = newId()
  const now = svc.now()
  const room = sql`${db.$count(members, eq(members.userId, userId))} < ${MAX_WORKSPACES_PER_PERSON}`
  const [made] = await db.batch([
    db
      .insert(workspaces)
      .select(sql`SELECT ${workspaceId}, ${name}, ${userId}, ${now}, 0 WHERE ${room}`)
      // Not meta.changes: the row's trigger (its usage totals) counts among those.
      .returning({ workspaceId: workspaces.workspaceId }),
    db.insert(members).select((qb) =>
      qb
        .select({
          workspaceId: workspaces.workspaceId,
          userId: value(members.userId, userId),
          role: value(members.role, 'owner'),
          joinedAt: value(members.joinedAt, now),
        })
        .from(workspaces)
        .where(eq(workspaces.workspaceId, workspaceId)),
    ),
  ])
  if (made.length !== 1) {
    throw new AppError(
      'conflict',
      `a person belongs to at most ${MAX_WORKSPACES_PER_PERSON} workspaces: leave one first`,
    )
  }
  return present({ workspaceId, name, role: 'owner', personal: false, createdAt: now })
}

/** Renames the workspace `workspaceId` (admins). */
export async function renameWorkspace(
  svc: Services,
  actor: Actor,
  workspaceId: string,
  name: string,
) {
  const member = await actorIn(svc, actor, workspaceId)
  requireRole(member, 'admin')
  const [[row], recorded] = await svc.db.batch([
    svc.db
      .update(workspaces)
      .set({ name })
      .where(eq(workspaces.workspaceId, workspaceId))
      .returning({
        workspaceId: workspaces.workspaceId,
        name: workspaces.name,
        personal: workspaces.personal,
        createdAt: workspaces.createdAt,
      }),
    recordOf(svc, member, {
      action: 'workspace.renamed',
      target: { type: 'workspace', id: workspaceId },
      details: { name },
    }),
  ])
  if (!row) throw workspaceNotFound()
  announceAudit(svc, recorded)
  return present({ ...row, role: member.role })
}

/** Makes `workspaceId` the one a web session acts in: it must be one of the person's. */
export async function switchWorkspace(
  svc: Services,
  sessionHash: string,
  userId: string,
  workspaceId: string,
) {
  const db = svc.db
  const [, row] = await db.batch([
    db
      .update(sessions)
      .set({ workspaceId })
      .where(and(eq(sessions.sessionHash, sessionHash), isMember(db, workspaceId, userId))),
    db
      .select(FIELDS)
      .from(members)
      .innerJoin(workspaces, eq(workspaces.workspaceId, members.workspaceId))
      .where(and(eq(members.workspaceId, workspaceId), eq(members.userId, userId))),
  ])
  if (row.length === 0) throw workspaceNotFound()
  return present(row[0])
}

/** A signed-in person uses an invite: they join its workspace, and their session goes there. */
export async function joinWithSession(
  svc: Services,
  session: { sessionHash: string; user: { user_id: string; email: string } },
  token: string,
) {
  const person = { userId: session.user.user_id, email: session.user.email }
  const used = await joinInvite(svc, token, person)
  return switchWorkspace(svc, session.sessionHash, person.userId, used.workspaceId)
}
