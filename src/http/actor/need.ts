import { eq } from 'drizzle-orm'
import type { Actor } from '../../domain/actor'
import type { Services } from '../../domain/services'
import { allows, type Permission } from '../../domain/workspaces/roles'
import { AppError } from '../../lib/errors'
import type { Role, Scope } from '../../schema/requests'
import { workspaces } from '../../storage/schema'

// What a route, a tool or a control needs of whoever uses it: a role in the workspace and a scope
// of the credential (docs/architecture.md#who-acts). Each states it once; from that statement come
// the check (here), the API description's note, the tests' route table, the tools a credential
// is shown and the controls a page shows.

export type Need = { role: Role; scope: Scope }

/** Reading the workspace: any member, any credential. */
export const READ: Need = { role: 'viewer', scope: 'read' }
/**
 * Writing what is a member's own (a comment, their name, their keys, leaving): any role, with a
 * credential that writes; a viewer's keys and apps only read, so this is their session's.
 */
export const MEMBER: Need = { role: 'viewer', scope: 'write' }
/** Changing canvases: an editor, with a credential that writes. */
export const WRITE: Need = { role: 'editor', scope: 'write' }
/** Managing the workspace (members, invites, webhooks, its log). */
export const ADMIN: Need = { role: 'admin', scope: 'write' }
/** What only an owner does (deleting the workspace). */
export const OWNER: Need = { role: 'owner', scope: 'write' }

// What each least role is asked for, in a refusal's words.
const DOING: Record<Role, string> = {
  viewer: 'reading this workspace',
  editor: 'changing canvases',
  admin: 'managing this workspace',
  owner: 'what only an owner does',
}

const PERMISSION: Record<Role, Permission> = {
  viewer: 'read',
  editor: 'write',
  admin: 'admin',
  owner: 'owner',
}

/** Whether the actor has what `need` asks, role and scope alike. */
export const may = (actor: Actor, need: Need) =>
  allows(actor.role, PERMISSION[need.role]) && actor.scopes.includes(need.scope)

/**
 * Refuses the actor unless they have what `need` asks: the role first (a demoted member's key
 * still has its scopes: the role is the reason, and the refusal says so, naming the workspace),
 * then the credential's scope.
 */
export async function requireNeed(svc: Services, actor: Actor, need: Need) {
  const granted = actor.by.granted ?? actor.scopes
  if (allows(actor.role, PERMISSION[need.role])) {
    if (!granted.includes(need.scope)) throw scopeRefusal(actor, need.scope)
    if (actor.scopes.includes(need.scope)) return
  }
  const where = await workspaceName(svc, actor.workspaceId)
  const yours = `yours in ${where} is ${actor.role}`
  if (!allows(actor.role, PERMISSION[need.role])) {
    throw new AppError('forbidden', `${DOING[need.role]} needs the ${need.role} role; ${yours}`)
  }
  // The role narrows what the credential was given: a viewer's keys and apps only read.
  throw new AppError(
    'forbidden',
    `a viewer's keys and apps only read: writing through one needs the editor role; ${yours}`,
  )
}

/** The refusal of a credential without `scope`: an app may ask the person again, a key cannot. */
export function scopeRefusal(actor: Actor, scope: Scope) {
  if (actor.by.kind === 'agent') {
    return new AppError(
      'forbidden',
      `this app was granted read access only: ask for canvas:${scope}`,
    )
  }
  return new AppError('forbidden', `this API key lacks the '${scope}' scope`)
}

/** A workspace's name as a refusal quotes it (read only when refusing). */
async function workspaceName(svc: Services, workspaceId: string) {
  const row = await svc.db
    .select({ name: workspaces.name })
    .from(workspaces)
    .where(eq(workspaces.workspaceId, workspaceId))
    .get()
  return row ? `“${row.name}”` : 'this workspace'
}
