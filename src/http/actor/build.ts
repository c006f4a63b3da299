import type { Actor, Person } from '../../domain/actor'
import { localPart } from '../../lib/names'
import { boundToWorkspace } from '../../domain/actor'
import { parseScopes, type KeyLookupRow } from '../../domain/keys'
import type { GrantRow } from '../../domain/oauth/grants'
import type { Services } from '../../domain/services'
import type { SessionInfo } from '../../domain/users'
import { findRole, workspaceNotFound } from '../../domain/workspaces/members'
import { scopesOf } from '../../domain/workspaces/roles'
import { AppError } from '../../lib/errors'
import type { Role, Scope } from '../../schema/requests'

// The one place an actor is made (docs/architecture.md#who-acts): from the row a credential's
// lookup read (a key's, a grant's, a session's, in the request's one D1 round trip), and, for a
// route about another of the person's workspaces, from their membership there. The domain
// receives the value; nothing else builds one.

/**
 * Every scope: a member's own session is the person themself, whom only their role bounds (a
 * viewer comments there; their keys and apps only read).
 */
const ALL_SCOPES: Scope[] = ['read', 'write']

/** The person of a row that joined their user. */
const personOf = (row: { email: string; displayName: string | null }): Person => ({
  name: row.displayName ?? localPart(row.email),
  email: row.email,
})

/** The actor of a live API key's row, or null when none was found. */
export function keyActor(row: KeyLookupRow | undefined): Actor | null {
  if (!row) return null
  const granted = parseScopes(row.scopes)
  return {
    userId: row.userId,
    workspaceId: row.workspaceId,
    role: row.role,
    person: personOf(row),
    scopes: scopesOf(row.role, granted),
    by: {
      kind: 'key',
      name: row.name,
      keyId: row.keyId,
      keyOrigin: row.origin,
      granted,
      lastUsedAt: row.lastUsedAt,
    },
  }
}

/**
 * The actor of a standing grant's row (an app a person connected), or null. `tokenScopes`: what
 * the access token presented carries, which may be less than the grant (a refresh may ask less).
 */
export function grantActor(
  grantId: string,
  row: GrantRow | undefined,
  tokenScopes?: Scope[],
): Actor | null {
  if (!row) return null
  const stored = parseScopes(row.scopes)
  const granted = tokenScopes ? stored.filter((s) => tokenScopes.includes(s)) : stored
  return {
    userId: row.userId,
    workspaceId: row.workspaceId,
    role: row.role,
    person: personOf(row),
    scopes: scopesOf(row.role, granted),
    by: {
      kind: 'agent',
      name: row.clientName,
      grantId,
      clientId: row.clientId,
      granted,
      lastUsedAt: row.lastUsedAt,
    },
  }
}

/** The actor of a member's own web session, in its current workspace. */
export function sessionActor(session: SessionInfo): Actor {
  const { user, workspace } = session
  return {
    userId: user.user_id,
    workspaceId: workspace.workspace_id,
    role: workspace.role,
    person: personOf({ email: user.email, displayName: session.displayName }),
    scopes: ALL_SCOPES,
    by: { kind: 'member', name: user.email, sessionId: session.sessionId, granted: ALL_SCOPES },
  }
}

/**
 * The person approving a device sign-in or an app, in the workspace they chose for it: the one
 * whose role the key or grant will carry.
 */
export async function actorIn(svc: Services, actor: Actor, workspaceId: string): Promise<Actor> {
  if (workspaceId === actor.workspaceId) return actor
  if (boundToWorkspace(actor)) throw boundRefusal()
  const role = await findRole(svc, workspaceId, actor.userId)
  if (!role) throw workspaceNotFound()
  return retargeted(actor, workspaceId, role)
}

/** The refusal of a credential bound to one workspace, asked to act beyond it. */
export const boundRefusal = () =>
  new AppError(
    'forbidden',
    'this credential was approved for one workspace and acts only there: sign in to the other (svc login) for a key of its own',
  )

/** The same person and credential in another workspace of theirs, with their role there. */
function retargeted(actor: Actor, workspaceId: string, role: Role): Actor {
  const granted = actor.by.granted ?? actor.scopes
  // A session is its person, whom only the role bounds; a key or an app, what the role allows.
  const scopes = actor.by.kind === 'member' ? granted : scopesOf(role, granted)
  const by = { ...actor.by, home: actor.by.home ?? actor.workspaceId }
  return { ...actor, workspaceId, role, scopes, by }
}

/**
 * The person a device code was approved by, as the CLI's poll acts for them: in the workspace
 * they chose, with the role they hold there now (404 once they are no longer a member).
 */
export async function deviceApprover(
  svc: Services,
  approved: { userId: string; workspaceId: string; email: string; displayName: string | null },
): Promise<Actor> {
  const role = await findRole(svc, approved.workspaceId, approved.userId)
  if (!role) throw workspaceNotFound()
  return {
    userId: approved.userId,
    workspaceId: approved.workspaceId,
    role,
    person: personOf(approved),
    scopes: ALL_SCOPES,
    by: { kind: 'member', name: approved.email, granted: ALL_SCOPES },
  }
}
