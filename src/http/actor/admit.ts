import type { Context } from 'hono'
import type { Actor } from '../../domain/actor'
import { AppError } from '../../lib/errors'
import type { AppEnv } from '../context'
import { boundToWorkspace } from '../../domain/actor'
import { actorIn, boundRefusal } from './build'
import { requireNeed } from './need'
import type { Access } from './statement'

export type { Access }

// The last step of every credential's way in: the actor its lookup made is held to what the
// route's access step said it needs, in the workspace the route acts in, and then carried by the
// request as `c.var.actor`.

/** The route's access, as its access step set it: a route without one is a bug, refused as one. */
export function needOf(c: Context<AppEnv>): Access {
  const access = c.var.access
  if (!access) throw new AppError('internal_error', 'the route states no need of its actor')
  return access
}

/**
 * Holds `actor` to the route's access: moved to the path's workspace when the route acts there
 * (404 unless they are a member), then refused (403) without the role or the scope it needs.
 */
export async function admitted(c: Context<AppEnv>, actor: Actor, access: Access) {
  const svc = c.var.svc
  if (access.workspace === 'new' && boundToWorkspace(actor)) throw boundRefusal()
  const placed =
    access.workspace === 'path'
      ? await actorIn(svc, actor, c.req.param('workspace_id') ?? '')
      : actor
  // Acting on oneself (leaving) asks no role of anyone, only what the credential may do.
  const onSelf = access.self !== undefined && c.req.param(access.self) === placed.userId
  const need = onSelf ? { role: 'viewer' as const, scope: access.need.scope } : access.need
  await requireNeed(svc, placed, need)
  c.set('actor', placed)
  return placed
}
