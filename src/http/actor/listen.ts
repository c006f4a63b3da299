import { and, eq, gt, isNull } from 'drizzle-orm'
import { accessTags, type Actor } from '../../domain/actor'
import { accessEnded } from '../../domain/comments/wait'
import { standing } from '../../domain/oauth/grants'
import type { Services } from '../../domain/services'
import { one } from '../../storage/db'
import { apiKeys, members, oauthGrants, sessions } from '../../storage/schema'

// A request that holds on for a while (a wait for comments) listens under its credential: it is
// recorded where its person's credentials listen (live/person-live.ts), so that their end reaches
// it, and the credential is asked again (in D1's primary) once recorded, which closes the moment
// between the request's access step and the record, and again before what it found goes out,
// which closes the moment between a comment's wake and the end.

/**
 * Records the actor's wait on the canvas and checks their credential still stands; answers the
 * tags the wait is held under.
 */
export async function listenAs(
  svc: Services,
  actor: Actor,
  place: { canvasId: string; workspaceId: string },
) {
  const tags = accessTags(actor)
  await svc.access?.watch(actor.userId, { ...place, tags })
  await requireStillActing(svc, actor)
  return tags
}

/** Refuses (401) unless the actor's credential still stands and its person is still a member. */
export async function requireStillActing(svc: Services, actor: Actor) {
  const { sessionId, keyId, grantId } = actor.by
  const member = and(eq(members.workspaceId, actor.workspaceId), eq(members.userId, actor.userId))
  const db = svc.db
  const now = svc.now()
  const credential = sessionId
    ? db
        .select(one)
        .from(sessions)
        .where(and(eq(sessions.sessionId, sessionId), gt(sessions.expiresAt, now)))
    : keyId
      ? db
          .select(one)
          .from(apiKeys)
          .where(and(eq(apiKeys.keyId, keyId), isNull(apiKeys.revokedAt)))
      : grantId
        ? db
            .select(one)
            .from(oauthGrants)
            .where(and(eq(oauthGrants.grantId, grantId), standing(now)))
        : null
  const [held, isMember] = await db.batch([
    credential ?? db.select(one).from(members).where(member),
    db.select(one).from(members).where(member),
  ])
  if (held.length === 0 || isMember.length === 0) throw accessEnded()
}
