import type { Need } from './need'

// What a route's first step says of who may call it: the kind of credential it takes and, for a
// member's credentials, what it needs of them (http/actor/need.ts). Carried on the step itself,
// so that everything made from it (the check, the API description, the tests' route table) reads
// the one statement off the routes the app registers.

export type AccessKind = 'none' | 'key' | 'session' | 'page' | 'viewer' | 'share' | 'signed'

export type Statement = {
  kind: AccessKind
  /** What a member's credential needs: a role in the workspace and a scope. */
  need?: Need
  /**
   * Where the route acts: the credential's own workspace (the default), the one its path names
   * (`:workspace_id`), or a new one it makes; the last two never for a credential bound to the
   * workspace the person approved it for (an app, a key of the CLI's sign-in).
   */
  workspace?: 'credential' | 'path' | 'new'
  /**
   * A path parameter naming a person: acting on oneself (leaving a workspace) needs no role,
   * only the scope.
   */
  self?: string
  /** Takes an app's OAuth access token besides an API key (the MCP endpoint). */
  token?: true
  /**
   * Hands out a canvas's content (its bytes, a redirect to them, a frame that shows them): what
   * every way access ends must stop at once (test/security/withdrawal.test.ts).
   */
  content?: true
  /** Served over https only, or on the machine itself (OAuth: tokens never travel in clear). */
  https?: true
}

/** What a route's access step asks of its actor, set on the request for the checks after it. */
export type Access = Pick<Statement, 'workspace' | 'self'> & { need: Need }

/** What a step states beyond its kind and its need. */
export type Options = Pick<Statement, 'workspace' | 'self' | 'content' | 'https'>

const ACCESS = Symbol('access')

/** Marks `step` as a route's access step, stating `statement`. */
export function stated<S extends object>(statement: Statement, step: S): S {
  return Object.assign(step, { [ACCESS]: statement })
}

/** The statement of a route's access step, or undefined for any other step. */
export const statementOf = (fn: unknown): Statement | undefined =>
  (fn as { [ACCESS]?: Statement })[ACCESS]
