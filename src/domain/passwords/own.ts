import { and, eq, ne } from 'drizzle-orm'
import { publicName } from '../../lib/names'
import { AppError } from '../../lib/errors'
import { constantTimeEqual, hashPassword, verifyPassword } from '../../lib/crypto'
import { sessions, users } from '../../storage/schema'
import type { Services } from '../services'
import { announceAudit, auditEveryWorkspace } from '../audit/record'
import { NO_PASSWORD, requirePasswordLogin, type SessionInfo } from '../users'

// A person's own password (Settings): changed with the current one, or set for the first time by
// a person who came by single sign-on. A change signs out every other session of theirs: whoever
// knew the old password and used it elsewhere is out at once.

/** Whether the account has a password of its own (one made by single sign-on has none). */
export async function hasPassword(svc: Services, userId: string): Promise<boolean> {
  const row = await svc.db
    .select({ hash: users.passwordHash })
    .from(users)
    .where(eq(users.userId, userId))
    .get()
  return Boolean(row && !passwordless(row.hash))
}

// Compared as every stored secret is, though this marker is none: one rule for the column.
const passwordless = (stored: string) => constantTimeEqual(stored, NO_PASSWORD)

/** Why a change was refused when the current password given is not the account's. */
export const WRONG_CURRENT = 'the current password is not right'

export async function changePassword(
  svc: Services,
  session: SessionInfo,
  input: { current: string; password: string },
) {
  // With PASSWORD_LOGIN=off a password opens nothing: none is set or changed either.
  requirePasswordLogin(svc)
  const userId = session.user.user_id
  const row = await svc.db
    .select({ hash: users.passwordHash })
    .from(users)
    .where(eq(users.userId, userId))
    .get()
  if (!row) throw new AppError('unauthorized', 'this account no longer exists')
  const first = passwordless(row.hash)
  if (!first && !(await verifyPassword(input.current, row.hash))) {
    throw new AppError('forbidden', WRONG_CURRENT)
  }
  const hash = await hashPassword(input.password)
  const { email } = session.user
  const person = {
    kind: 'member',
    userId,
    name: email,
    person: { name: publicName({ email, displayName: session.displayName }), email },
  } as const
  const [, ended, recorded] = await svc.db.batch([
    svc.db.update(users).set({ passwordHash: hash }).where(eq(users.userId, userId)),
    svc.db
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), ne(sessions.sessionHash, session.sessionHash)))
      .returning({ id: sessions.sessionId }),
    auditEveryWorkspace(svc, userId, person, {
      action: 'auth.password_changed',
      target: { type: 'person', id: userId },
      details: { first },
    }),
  ])
  announceAudit(svc, recorded)
  // What the other sessions held open (live pages, waits) ends with them.
  for (const { id } of ended) {
    if (id) await svc.access?.end(userId, { tag: `session:${id}` })
  }
  return { otherSessionsEnded: ended.length }
}
