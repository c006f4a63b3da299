// The kind of access a route's first step grants, carried on the step itself (http/access.ts), so
// that the route table test can read it off every route the app registers.

export type AccessKind = 'none' | 'key' | 'session' | 'page' | 'viewer' | 'share' | 'signed'

const ACCESS = Symbol('access')

/** Marks `step` as the route's access step of this kind. */
export function access<S extends object>(kind: AccessKind, step: S): S {
  return Object.assign(step, { [ACCESS]: kind })
}

export const accessOf = (fn: unknown): AccessKind | undefined =>
  (fn as { [ACCESS]?: AccessKind })[ACCESS]
