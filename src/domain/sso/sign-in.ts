import { and, eq, exists, isNull, sql } from 'drizzle-orm'
import { localPart } from '../../lib/names'
import type { BatchItem } from 'drizzle-orm/batch'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/crypto'
import { value } from '../../storage/db'
import { identities, members, users, workspaces } from '../../storage/schema'
import type { Services } from '../services'
import { announceAudit, auditStatement, type AuditRow } from '../audit/record'
import { NO_PASSWORD, normalizeEmail, openSession, sessionRowOf } from '../users'

// Signing in by the team's identity provider (docs/operations.md): OpenID Connect or Cloudflare
// Access has already proved who the person is (web/sso verifies their tokens); this decides who
// they are here. A person is bound by the provider's (issuer, subject); a first sign-in with the
// verified email of an account signs into that account, and one without an account makes one.

/** Who the identity provider says signed in, as its verified token said. */
export type ProvenIdentity = {
  issuer: string
  subject: string
  email: string
  /** The provider's `email_verified`; undefined when it does not say. */
  emailVerified: boolean | undefined
  method: 'oidc' | 'access'
}

/** A session for the person `who` is: their account, made or bound on their first sign-in. */
export async function signInBySso(svc: Services, who: ProvenIdentity) {
  const email = normalizeEmail(who.email)
  admitted(svc, email, who.emailVerified)
  const bound = await boundUser(svc, who)
  const userId = bound ?? (await bind(svc, { ...who, email }))
  const row = await sessionRowOf(svc, userId, svc.settings.sso.workspace?.workspaceId ?? null)
  if (!row) throw new AppError('unauthorized', 'this account no longer exists')
  return openSession(svc, row, who.method)
}

/** SSO_DOMAINS, and a provider that says the email is not verified: refused before anything. */
function admitted(svc: Services, email: string, verified: boolean | undefined) {
  if (verified === false) {
    throw new AppError('forbidden', `your identity provider has not verified ${email}`)
  }
  const domains = svc.settings.sso.domains
  const domain = email.slice(email.lastIndexOf('@') + 1)
  if (!email.includes('@') || (domains && !domains.includes(domain))) {
    throw new AppError(
      'forbidden',
      `this server admits by single sign-on only some email domains, and ${domain || email} is not one of them`,
    )
  }
}

async function boundUser(svc: Services, who: ProvenIdentity): Promise<string | null> {
  const [row] = await svc.db
    .update(identities)
    .set({ lastSeenAt: svc.now() })
    .where(and(eq(identities.issuer, who.issuer), eq(identities.subject, who.subject)))
    .returning({ userId: identities.userId })
  return row?.userId ?? null
}

/**
 * A first sign-in: binds the identity to the account of its email (a verified one only: an
 * unverified claim to an address must not open someone's account), or to a new account, which
 * joins SSO_WORKSPACE. Two first sign-ins at once bind once: the second finds the binding.
 */
async function bind(svc: Services, who: ProvenIdentity): Promise<string> {
  const db = svc.db
  const existing = await db
    .select({ userId: users.userId })
    .from(users)
    .where(eq(users.email, who.email))
    .get()
  if (existing && who.emailVerified !== true) {
    throw new AppError(
      'conflict',
      `an account with ${who.email} exists, and your identity provider does not say the email is verified: sign in with its password`,
    )
  }
  const userId = existing?.userId ?? newId()
  const now = svc.now()
  const account = existing ? [] : newAccount(svc, userId, who.email)
  const binding = db
    .insert(identities)
    .values({ issuer: who.issuer, subject: who.subject, userId, createdAt: now, lastSeenAt: now })
    .onConflictDoNothing()
    .returning({ userId: identities.userId })
  // Only an account this sign-in makes joins: an existing one chose its workspaces already, and a
  // member removed from the team is not brought back by signing in again.
  const join = existing ? [] : joinSsoWorkspace(svc, userId, who.email)
  // The account first: the binding and the membership refer to its row.
  const statements = [...account, binding, ...join] as [
    BatchItem<'sqlite'>,
    ...BatchItem<'sqlite'>[],
  ]
  const results = (await db.batch(statements)) as unknown[]
  const bound = results[account.length] as { userId: string }[]
  if (bound.length === 0) {
    // Another first sign-in of the same identity bound it a moment ago.
    const raced = await boundUser(svc, who)
    if (raced) return raced
    throw new AppError('conflict', 'this sign-in could not be recorded; try again')
  }
  if (join.length) announceAudit(svc, results[account.length + 2] as AuditRow[])
  return userId
}

/** A new account's user, personal workspace and owner membership: as a signup makes them. */
function newAccount(svc: Services, userId: string, email: string) {
  const db = svc.db
  const now = svc.now()
  const workspaceId = newId()
  return [
    db.insert(users).values({ userId, email, passwordHash: NO_PASSWORD, createdAt: now }),
    db.insert(workspaces).values({
      workspaceId,
      name: email.split('@')[0] || email,
      ownerUserId: userId,
      createdAt: now,
      personal: true,
    }),
    db.insert(members).values({ workspaceId, userId, role: 'owner', joinedAt: now }),
  ] as const
}

/** SSO_WORKSPACE: the person joins it with its role, unless already a member or it is gone. */
function joinSsoWorkspace(svc: Services, userId: string, email: string) {
  const target = svc.settings.sso.workspace
  if (!target) return []
  const db = svc.db
  const live = db
    .select({ one: sql`1` })
    .from(workspaces)
    .where(and(eq(workspaces.workspaceId, target.workspaceId), isNull(workspaces.deletedAt)))
  return [
    db
      .insert(members)
      .select(
        db
          .select({
            workspaceId: value(members.workspaceId, target.workspaceId),
            userId: value(members.userId, userId),
            role: value(members.role, target.role),
            joinedAt: value(members.joinedAt, svc.now()),
          })
          .from(users)
          .where(and(eq(users.userId, userId), exists(live))),
      )
      .onConflictDoNothing(),
    auditStatement(
      svc,
      target.workspaceId,
      { kind: 'member', userId, name: email, person: { name: localPart(email), email } },
      {
        action: 'member.joined',
        target: { type: 'member', id: userId },
        details: { email, role: target.role, by: 'single sign-on' },
      },
    ),
  ] as const
}
