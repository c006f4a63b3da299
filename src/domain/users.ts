import { AppError } from '../lib/errors'
import {
  burnPasswordCheck,
  hashPassword,
  newId,
  randomBase62,
  sha256Hex,
  verifyPassword,
} from '../lib/crypto'
import type { Actor, Services } from './services'

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000

export type Account = {
  user: { user_id: string; email: string }
  workspace: { workspace_id: string; name: string }
}

export type SessionInfo = Account & { sessionHash: string; sessionId: string; expiresAt: number }

type Credentials = { email: string; password: string }

/**
 * Creates a user, their personal workspace and a first session in one transaction. The first
 * signup is always allowed; later ones only when SIGNUP is open. Both rules are checked inside the
 * INSERT, so two racing "first" signups cannot both win.
 */
export async function signup(svc: Services, input: Credentials) {
  const email = normalizeEmail(input.email)
  const passwordHash = await hashPassword(input.password)
  const now = svc.now()
  const userId = newId()
  const workspaceId = newId()
  const workspaceName = email.split('@')[0] || email
  const session = await newSession()
  const expiresAt = now + SESSION_TTL_MS
  const [inserted] = await svc.d1.batch([
    svc.d1
      .prepare(
        `INSERT INTO users (user_id, email, password_hash, created_at)
         SELECT ?1, ?2, ?3, ?4
         WHERE (?5 = 1 OR NOT EXISTS (SELECT 1 FROM users))
           AND NOT EXISTS (SELECT 1 FROM users WHERE email = ?2)`,
      )
      .bind(userId, email, passwordHash, now, svc.settings.signupOpen ? 1 : 0),
    svc.d1
      .prepare(
        `INSERT INTO workspaces (workspace_id, name, owner_user_id, created_at)
         SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM users WHERE user_id = ?3)`,
      )
      .bind(workspaceId, workspaceName, userId, now),
    svc.d1
      .prepare(
        `INSERT INTO sessions (session_hash, session_id, user_id, workspace_id, created_at, expires_at)
         SELECT ?1, ?6, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM users WHERE user_id = ?2)`,
      )
      .bind(session.hash, userId, workspaceId, now, expiresAt, session.id),
  ])
  if (inserted.meta.changes !== 1) {
    if (!svc.settings.signupOpen) {
      const anyone = await svc.d1.prepare('SELECT 1 FROM users LIMIT 1').first()
      if (anyone) throw new AppError('signup_closed', 'signup is closed on this server')
    }
    throw new AppError('conflict', 'email: an account with this email already exists')
  }
  const account: Account = {
    user: { user_id: userId, email },
    workspace: { workspace_id: workspaceId, name: workspaceName },
  }
  return { account, sessionToken: session.token, expiresAt }
}

/** Wrong email and wrong password answer alike, in about the same time. */
export async function login(svc: Services, input: Credentials) {
  const email = normalizeEmail(input.email)
  const row = await svc.d1
    .prepare(
      `SELECT u.user_id, u.email, u.password_hash, w.workspace_id, w.name
       FROM users u JOIN workspaces w ON w.owner_user_id = u.user_id
       WHERE u.email = ? ORDER BY w.created_at LIMIT 1`,
    )
    .bind(email)
    .first<{
      user_id: string
      email: string
      password_hash: string
      workspace_id: string
      name: string
    }>()
  if (!row) {
    await burnPasswordCheck(input.password)
    throw new AppError('unauthorized', 'wrong email or password')
  }
  if (!(await verifyPassword(input.password, row.password_hash))) {
    throw new AppError('unauthorized', 'wrong email or password')
  }
  const now = svc.now()
  const session = await newSession()
  const expiresAt = now + SESSION_TTL_MS
  await svc.d1
    .prepare(
      `INSERT INTO sessions (session_hash, session_id, user_id, workspace_id, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .bind(session.hash, session.id, row.user_id, row.workspace_id, now, expiresAt)
    .run()
  const account: Account = {
    user: { user_id: row.user_id, email: row.email },
    workspace: { workspace_id: row.workspace_id, name: row.name },
  }
  return { account, sessionToken: session.token, expiresAt }
}

export async function resolveSession(svc: Services, token: string): Promise<SessionInfo | null> {
  if (!/^[A-Za-z0-9]{43}$/.test(token)) return null
  const hash = await sha256Hex(token)
  const row = await svc.d1
    .prepare(
      `SELECT s.session_hash, s.session_id, s.expires_at, u.user_id, u.email, w.workspace_id, w.name
       FROM sessions s
       JOIN users u ON u.user_id = s.user_id
       JOIN workspaces w ON w.workspace_id = s.workspace_id
       WHERE s.session_hash = ? AND s.expires_at > ?`,
    )
    .bind(hash, svc.now())
    .first<{
      session_hash: string
      session_id: string
      expires_at: number
      user_id: string
      email: string
      workspace_id: string
      name: string
    }>()
  if (!row) return null
  return {
    sessionHash: row.session_hash,
    sessionId: row.session_id,
    expiresAt: row.expires_at,
    user: { user_id: row.user_id, email: row.email },
    workspace: { workspace_id: row.workspace_id, name: row.name },
  }
}

export async function endSession(svc: Services, token: string): Promise<void> {
  await svc.d1
    .prepare('DELETE FROM sessions WHERE session_hash = ?')
    .bind(await sha256Hex(token))
    .run()
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

async function newSession() {
  const token = randomBase62(43)
  return { token, hash: await sha256Hex(token), id: newId() }
}

/** The workspace-scoped caller behind a web session. */
export function sessionActor(session: Account): Actor {
  return { userId: session.user.user_id, workspaceId: session.workspace.workspace_id }
}
