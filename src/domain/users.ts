import { and, asc, eq, exists, gt, isNull, not, notExists, or, sql, type SQL } from 'drizzle-orm'
import { localPart, publicName } from '../lib/names'
import { AppError } from '../lib/errors'
import {
  burnPasswordCheck,
  constantTimeEqual,
  hashPassword,
  newId,
  randomBase62,
  sha256Hex,
  verifyPassword,
} from '../lib/crypto'
import { one, prepared, value, type Database, type Placeholders } from '../storage/db'
import type { Role } from '../schema/requests'
import { invites, members, sessions, users, workspaces } from '../storage/schema'
import type { Services } from './services'
import type { Actor } from './actor'
import { personName } from './person-name'
import { personalWorkspace } from './workspaces/members'
import { announceAudit, auditEveryWorkspace, type AuditRow } from './audit/record'
import {
  invitedHere,
  inviteHashOf,
  inviteNotFound,
  joinStatements,
  whyNotJoined,
} from './workspaces/invites'

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000

export type Account = {
  user: { user_id: string; email: string }
  workspace: { workspace_id: string; name: string; role: Role }
}

export type SessionInfo = Account & {
  sessionHash: string
  sessionId: string
  expiresAt: number
  /** The name the person chose to be shown by (Settings), or null for their email's local part. */
  displayName: string | null
}

type Credentials = { email: string; password: string }

/**
 * Who may create a deployment's first account: whoever holds its setup token (SETUP_TOKEN, the
 * one-time link `npm run deploy` prints), or, when none is set, a person at the machine itself
 * (`npm run dev`): a fresh deployment on the Internet is never anyone's who finds it first.
 */
export type Setup = {
  token?: string
  local: boolean
  /** An invite's token: it admits the signup even when SIGNUP is closed, and the person joins. */
  invite?: string
}

export function mayCreateFirst(svc: Services, setup: Setup): boolean {
  const expected = svc.settings.setupToken
  if (expected === null) return setup.local
  return setup.token !== undefined && constantTimeEqual(setup.token, expected)
}

/**
 * Creates a user, their personal workspace and a first session in one transaction. The first
 * signup needs the deployment's setup token (or the machine itself, locally); later ones are
 * allowed when SIGNUP is open. Both rules are checked inside the INSERT, so two racing "first"
 * signups cannot both win.
 */
export async function signup(svc: Services, input: Credentials, setup: Setup) {
  requirePasswordLogin(svc)
  const passwordHash = await hashPassword(input.password)
  return createAccount(svc, { email: input.email, passwordHash }, setup)
}

/**
 * What signup does once the password is hashed. Apart, because the hashing (100,000 rounds of
 * PBKDF2) is most of a signup's CPU: the tests' hundreds of fixture accounts share one hash.
 */
export async function createAccount(
  svc: Services,
  input: { email: string; passwordHash: string },
  setup: Setup,
) {
  const email = normalizeEmail(input.email)
  const passwordHash = input.passwordHash
  const now = svc.now()
  const userId = newId()
  const workspaceId = newId()
  const workspaceName = email.split('@')[0] || email
  const session = await newSession()
  const expiresAt = now + SESSION_TTL_MS
  const db = svc.db
  const inviteHash = setup.invite === undefined ? null : await inviteHashOf(setup.invite)
  if (setup.invite !== undefined && !inviteHash) throw inviteNotFound()
  const someone = exists(db.select(one).from(users))
  const admitted = or(
    sql`${svc.settings.signupOpen ? 1 : 0}`,
    inviteHash ? invitedHere(db, inviteHash, email, now) : undefined,
  )
  const allowed = and(
    or(and(someone, admitted), and(not(someone), sql`${mayCreateFirst(svc, setup) ? 1 : 0}`)),
    notExists(db.select(one).from(users).where(eq(users.email, email))),
  )
  const joiner = { userId, email }
  const join = inviteHash ? joinStatements(svc, inviteHash, joiner, now) : []
  // The session starts in the workspace the invite joined, when it did.
  const joined = inviteHash
    ? sql`COALESCE((${db
        .select({ workspaceId: invites.workspaceId })
        .from(invites)
        .where(
          and(eq(invites.tokenHash, inviteHash), eq(invites.usedBy, userId)),
        )}), ${workspaceId})`
    : sql`${workspaceId}`
  const [inserted, , , ...rest] = await db.batch([
    // A SELECT without FROM, which the builder cannot say: its WHERE is the signup rule.
    db
      .insert(users)
      .select(sql`SELECT ${userId}, ${email}, ${passwordHash}, ${now}, NULL WHERE ${allowed}`),
    // The workspace and the session are selected from the new user's row: no user, no insert.
    db.insert(workspaces).select((qb) =>
      qb
        .select({
          workspaceId: value(workspaces.workspaceId, workspaceId),
          name: value(workspaces.name, workspaceName),
          ownerUserId: users.userId,
          createdAt: value(workspaces.createdAt, now),
          personal: value(workspaces.personal, true),
          quotaBytes: value(workspaces.quotaBytes, null),
          defaultTtl: value(workspaces.defaultTtl, null),
          deletedAt: value(workspaces.deletedAt, null),
          requireReview: value(workspaces.requireReview, false),
        })
        .from(users)
        .where(eq(users.userId, userId)),
    ),
    db.insert(members).select((qb) =>
      qb
        .select({
          workspaceId: value(members.workspaceId, workspaceId),
          userId: users.userId,
          role: value(members.role, 'owner'),
          joinedAt: value(members.joinedAt, now),
        })
        .from(users)
        .where(eq(users.userId, userId)),
    ),
    ...join,
    db.insert(sessions).select((qb) =>
      qb
        .select({
          sessionHash: value(sessions.sessionHash, session.hash),
          sessionId: value(sessions.sessionId, session.id),
          userId: users.userId,
          workspaceId: sql<string>`${joined}`.as('workspace_id'),
          createdAt: value(sessions.createdAt, now),
          expiresAt: value(sessions.expiresAt, expiresAt),
          leftWorkspace: value(sessions.leftWorkspace, null),
        })
        .from(users)
        .where(eq(users.userId, userId)),
    ),
  ])
  if (inserted.meta.changes !== 1) throw await whyNoAccount(svc, email, inviteHash)
  const used = inviteHash ? (rest[0] as { workspaceId: string; role: Role }[]) : []
  if (inviteHash) announceAudit(svc, rest[2] as AuditRow[])
  const account: Account = {
    user: { user_id: userId, email },
    workspace: used[0]
      ? { ...(await workspaceOf(svc, used[0].workspaceId)), role: used[0].role }
      : { workspace_id: workspaceId, name: workspaceName, role: 'owner' },
  }
  return { account, sessionToken: session.token, expiresAt }
}

async function whyNoAccount(svc: Services, email: string, inviteHash: string | null) {
  const db = svc.db
  const anyone = await db.select(one).from(users).limit(1).get()
  if (!anyone) return setupNeeded()
  const taken = await db.select(one).from(users).where(eq(users.email, email)).get()
  if (taken) return new AppError('conflict', 'email: an account with this email already exists')
  if (inviteHash) return whyNotJoined(svc, inviteHash, { userId: '', email })
  return new AppError('signup_closed', 'signup is closed on this server')
}

async function workspaceOf(svc: Services, workspaceId: string) {
  const row = await svc.db
    .select({ name: workspaces.name })
    .from(workspaces)
    .where(eq(workspaces.workspaceId, workspaceId))
    .get()
  return { workspace_id: workspaceId, name: row?.name ?? '' }
}

export const setupNeeded = () =>
  new AppError(
    'signup_closed',
    'this server has no account yet: the first is created with its setup link (printed by npm run deploy) or its SETUP_TOKEN',
  )

/** PASSWORD_LOGIN=off: with single sign-on configured, passwords open nothing. */
export function requirePasswordLogin(svc: Services) {
  if (!svc.settings.sso.passwordLogin) {
    throw new AppError('forbidden', 'this server signs people in by single sign-on only')
  }
}

/** What an account made by single sign-on holds for a password: no password verifies it. */
export const NO_PASSWORD = 'none'

/** Wrong email and wrong password answer alike, in about the same time. */
export async function login(svc: Services, input: Credentials) {
  requirePasswordLogin(svc)
  const email = normalizeEmail(input.email)
  const row = await svc.db
    .select({
      userId: users.userId,
      email: users.email,
      displayName: users.displayName,
      passwordHash: users.passwordHash,
      workspaceId: workspaces.workspaceId,
      name: workspaces.name,
      role: members.role,
    })
    .from(users)
    .innerJoin(workspaces, and(eq(workspaces.ownerUserId, users.userId), workspaces.personal))
    .innerJoin(members, personalMember)
    .where(eq(users.email, email))
    .orderBy(asc(workspaces.createdAt))
    .limit(1)
    .get()
  if (!row || !(await verifyPassword(input.password, row.passwordHash))) {
    if (!row) await burnPasswordCheck(input.password)
    // Recorded in the person's workspaces; for an unknown address the same statement records
    // nothing, so that both answers take as long. Whoever typed the password is not known to be
    // the person: the event names the address tried.
    const tried = { kind: 'visitor', userId: null, name: email } as const
    const failed = {
      action: 'auth.login_failed',
      target: { type: 'person', id: row?.userId ?? '' },
    } as const
    announceAudit(svc, await auditEveryWorkspace(svc, row?.userId ?? '', tried, failed))
    throw new AppError('unauthorized', 'wrong email or password')
  }
  return openSession(svc, row, 'password')
}

type SessionRow = {
  userId: string
  email: string
  displayName: string | null
  workspaceId: string
  name: string
  role: Role
}

/**
 * A new session of the person `row` in its workspace, and their sign-in in the audit log of each
 * workspace they are in, in one batch. `method`: how they proved who they are.
 */
export async function openSession(
  svc: Services,
  row: SessionRow,
  method: 'password' | 'oidc' | 'access',
) {
  const person = {
    kind: 'member',
    userId: row.userId,
    name: row.email,
    person: { name: publicName(row), email: row.email },
  } as const
  const target = { type: 'person', id: row.userId } as const
  const now = svc.now()
  const session = await newSession()
  const expiresAt = now + SESSION_TTL_MS
  const [, recorded] = await svc.db.batch([
    svc.db.insert(sessions).values({
      sessionHash: session.hash,
      sessionId: session.id,
      userId: row.userId,
      workspaceId: row.workspaceId,
      createdAt: now,
      expiresAt,
    }),
    auditEveryWorkspace(svc, row.userId, person, {
      action: 'auth.login',
      target,
      ...(method === 'password' ? {} : { details: { method } }),
    }),
  ])
  announceAudit(svc, recorded)
  const account: Account = {
    user: { user_id: row.userId, email: row.email },
    workspace: { workspace_id: row.workspaceId, name: row.name, role: row.role },
  }
  // The session as a request resolves it, for the request that opened it.
  const info: SessionInfo = {
    ...account,
    sessionHash: session.hash,
    sessionId: session.id,
    expiresAt,
    displayName: row.displayName,
  }
  return { account, session: info, sessionToken: session.token, expiresAt }
}

/**
 * The person `userId` as a session starts: in `workspaceId` when they are a member of it, else in
 * their personal workspace. Null when the account is gone.
 */
export async function sessionRowOf(
  svc: Services,
  userId: string,
  workspaceId: string | null,
): Promise<SessionRow | null> {
  const db = svc.db
  const inWorkspace = (id: string | SQL<string>) =>
    db
      .select({
        userId: users.userId,
        email: users.email,
        displayName: users.displayName,
        workspaceId: workspaces.workspaceId,
        name: workspaces.name,
        role: members.role,
      })
      .from(users)
      .innerJoin(members, eq(members.userId, users.userId))
      .innerJoin(
        workspaces,
        and(eq(workspaces.workspaceId, members.workspaceId), isNull(workspaces.deletedAt)),
      )
      .where(and(eq(users.userId, userId), eq(members.workspaceId, id)))
      .get()
  const chosen = workspaceId ? await inWorkspace(workspaceId) : undefined
  return chosen ?? (await inWorkspace(sql<string>`(${personalWorkspace(db, userId)})`)) ?? null
}

const personalMember = and(
  eq(members.workspaceId, workspaces.workspaceId),
  eq(members.userId, users.userId),
)

/**
 * The session of `token`, or null. `leftFrom` names the workspace the session was in when its
 * person is no longer a member of it (removed, or left in another tab): the session goes on in
 * their personal workspace, and sees nothing of the other.
 */
export async function resolveSession(
  svc: Services,
  token: string,
): Promise<(SessionInfo & { leftFrom?: string }) | null> {
  if (!/^[A-Za-z0-9]{43}$/.test(token)) return null
  const hash = await sha256Hex(token)
  let row = await sessionLookup(svc.db, { hash, now: svc.now() }).get()
  // Said once, on the next page: its person was removed from the workspace it was in.
  let leftFrom = row?.leftWorkspace ?? undefined
  if (row && row.role === null) {
    leftFrom = row.name
    await toPersonalWorkspace(svc, hash, row.userId)
    row = await sessionLookup(svc.db, { hash, now: svc.now() }).get()
  } else if (leftFrom !== undefined) {
    await svc.db.update(sessions).set({ leftWorkspace: null }).where(eq(sessions.sessionHash, hash))
  }
  // Every session has an id (migration 0001 gave the older ones theirs); the column allows NULL
  // only because it was added to a table that had rows.
  if (!row || row.sessionId === null || row.role === null) return null
  return {
    sessionHash: row.sessionHash,
    sessionId: row.sessionId,
    expiresAt: row.expiresAt,
    displayName: row.displayName,
    user: { user_id: row.userId, email: row.email },
    workspace: { workspace_id: row.workspaceId, name: row.name, role: row.role },
    ...(leftFrom !== undefined && { leftFrom }),
  }
}

/** Moves the session `hash` to the personal workspace of its person. */
async function toPersonalWorkspace(svc: Services, hash: string, userId: string) {
  await svc.db
    .update(sessions)
    .set({ workspaceId: sql`(${personalWorkspace(svc.db, userId)})` })
    .where(eq(sessions.sessionHash, hash))
}

// Every page a signed-in person opens runs it first.
const sessionLookup = prepared((db, p: Placeholders<{ hash: string; now: number }>) =>
  db
    .select({
      sessionHash: sessions.sessionHash,
      sessionId: sessions.sessionId,
      expiresAt: sessions.expiresAt,
      userId: users.userId,
      email: users.email,
      displayName: users.displayName,
      workspaceId: workspaces.workspaceId,
      name: workspaces.name,
      role: members.role,
      leftWorkspace: sessions.leftWorkspace,
    })
    .from(sessions)
    .innerJoin(users, eq(users.userId, sessions.userId))
    .innerJoin(workspaces, eq(workspaces.workspaceId, sessions.workspaceId))
    .leftJoin(
      members,
      and(eq(members.workspaceId, sessions.workspaceId), eq(members.userId, sessions.userId)),
    )
    .where(and(eq(sessions.sessionHash, p('hash')), gt(sessions.expiresAt, p('now')))),
)

/** Ends a session (a logout): its live sockets close and its waits end before this returns. */
export async function endSession(svc: Services, token: string): Promise<void> {
  const [ended] = await svc.db
    .delete(sessions)
    .where(eq(sessions.sessionHash, await sha256Hex(token)))
    .returning({ userId: sessions.userId, sessionId: sessions.sessionId })
  if (ended?.sessionId) await svc.access?.end(ended.userId, { tag: `session:${ended.sessionId}` })
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

/**
 * A person's display name as they set it (null: none), the name people outside the workspace
 * see, and the one they would see without a display name.
 */
export async function displayNameOf(svc: Services, userId: string) {
  const row = await svc.db
    .select({ email: users.email, displayName: users.displayName })
    .from(users)
    .where(eq(users.userId, userId))
    .get()
  if (!row) throw new AppError('unauthorized', 'this account no longer exists')
  return { displayName: row.displayName, shown: publicName(row), fallback: localPart(row.email) }
}

/** Sets a person's display name; null goes back to the part of their email before the @. */
export async function setDisplayName(svc: Services, userId: string, name: string | null) {
  await svc.db.update(users).set({ displayName: name }).where(eq(users.userId, userId))
}

/** The same, read in SQL for the user `userId` (as a column of a statement that writes). */
export const publicNameOf = (db: Database, userId: string) =>
  sql<string>`(${db
    .select({
      name: personName,
    })
    .from(users)
    .where(eq(users.userId, userId))})`

async function newSession() {
  const token = randomBase62(43)
  return { token, hash: await sha256Hex(token), id: newId() }
}
