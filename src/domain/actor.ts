import type { Role, Scope } from '../schema/requests'

// Who acts (docs/architecture.md#who-acts): the value every workspace-scoped operation of the
// domain takes. The domain reads it and never makes one: http/actor makes it, once per request,
// from whichever credential the request came with.

/**
 * The person behind a request, in one workspace: who they are, their role there at this request,
 * what the credential they came with may do, and how they came.
 */
export type Actor = {
  userId: string
  workspaceId: string
  role: Role
  /** The person, as their workspace knows them. */
  person: Person
  /** What this request may do: the credential's scopes, narrowed by the role (a viewer reads). */
  scopes: Scope[]
  by: ActingAs
}

/** A person: the name they go by (their display name, else their email's local part), and email. */
export type Person = { name: string; email: string }

/**
 * How an actor came: a member in their own session (named by email), a member's API key (by the
 * key's name), an app a member connected by OAuth (an agent, by the app's name).
 */
export type ActingAs = {
  kind: 'member' | 'key' | 'agent'
  name: string
  /** The web session it came with. */
  sessionId?: string
  /** The API key it came with. */
  keyId?: string
  /**
   * How that key was made: a key of the CLI's sign-in (`exchange`, `device`) acts only in the
   * workspace the person approved, as an app's grant does.
   */
  keyOrigin?: 'person' | 'exchange' | 'device'
  /** The OAuth grant it came with, and the app that holds it. */
  grantId?: string
  clientId?: string
  /** The credential's own scopes, before the role narrows them (a refusal says which it was). */
  granted?: Scope[]
  /**
   * The workspace the credential itself belongs to, when the request acts in another of the
   * person's (a route whose path names one): what is kept per credential (an Idempotency-Key's
   * answer) stays with the credential's.
   */
  home?: string
  /** When the key or grant was last used, as its row said (written at most once a minute). */
  lastUsedAt?: number | null
}

/**
 * The tags a live socket or a wait of this actor is held under: its person, and the credential it
 * came with, so that the end of either reaches it (live/person-live.ts).
 */
export function accessTags(actor: Actor): string[] {
  const { sessionId, keyId, grantId } = actor.by
  const credential = sessionId
    ? `session:${sessionId}`
    : keyId
      ? `key:${keyId}`
      : grantId
        ? `grant:${grantId}`
        : null
  return [`person:${actor.userId}`, ...(credential ? [credential] : [])]
}

/** An app's grant, or a key the CLI's sign-in made of one: what the person approved, no more. */
export const boundToWorkspace = (actor: Actor) =>
  actor.by.kind === 'agent' || (actor.by.keyOrigin ?? 'person') !== 'person'
