import { AppError } from '../../lib/errors'
import type { Role, Scope } from '../../schema/requests'
import type { Actor } from '../actor'

// What a member's role lets them do in the workspace, asked at the moment of each request: the
// role comes with the actor (read with the key, grant or session in the same D1 round trip), so
// a demotion or removal holds from the next request on, whatever the credential's own scopes.

/** What a request may do in its workspace. */
export type Permission = 'read' | 'comment' | 'write' | 'admin' | 'owner'

// The least role that has each permission; every role has what the roles below it have.
const RANKS: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 }
const LEAST: Record<Permission, Role> = {
  read: 'viewer',
  comment: 'viewer',
  write: 'editor',
  admin: 'admin',
  owner: 'owner',
}

const WHAT: Record<Permission, string> = {
  read: 'reading this workspace',
  comment: 'commenting',
  write: 'changing canvases',
  admin: 'managing this workspace',
  owner: 'what only an owner does',
}

export const allows = (role: Role, permission: Permission) =>
  RANKS[role] >= RANKS[LEAST[permission]]

/** `a` ranks at least as high as `b`. */
export const atLeast = (a: Role, b: Role) => RANKS[a] >= RANKS[b]

/** Whether role `a` ranks strictly above `b`. */
export const outranks = (a: Role, b: Role) => RANKS[a] > RANKS[b]

/** The roles that have `permission`, for a condition in SQL. */
export const rolesWith = (permission: Permission): Role[] =>
  (Object.keys(RANKS) as Role[]).filter((role) => allows(role, permission))

/** Refuses the actor unless their role has `permission`: 403 naming the role. */
export function requireRole(actor: Actor, permission: Permission) {
  if (!allows(actor.role, permission)) {
    throw new AppError(
      'forbidden',
      `${WHAT[permission]} needs the ${LEAST[permission]} role; yours in this workspace is ${actor.role}`,
    )
  }
}

/** What a credential with `scopes` may do for a member of this role: a viewer's only reads. */
export function scopesOf(role: Role, scopes: Scope[]): Scope[] {
  return allows(role, 'write') ? scopes : scopes.filter((scope) => scope === 'read')
}
