import { and, eq, inArray, isNull } from 'drizzle-orm'
import { oauthGrants, oauthSecrets } from '../../storage/schema'
import { endGrant, GRANT_IDLE_MS, standing, subjectOf, type LibraryGrant } from './grants'
import type { Services } from '../services'

// The secrets of an OAuth grant that work once: its authorization code and each refresh token,
// kept by their SHA-256. The token endpoint claims one here before the OAuth library honours it;
// KV, where the library keeps them, could let two locations both accept the same one, and the
// library itself lets a refresh token's predecessor through. A secret used twice ends its grant.

export type Claim =
  /** The secret was unused and its grant stands: it is now used, for this request alone. */
  | ({ outcome: 'claimed' } & LibraryGrant)
  /** The secret was used before: its grant has just been ended. */
  | ({ outcome: 'reused' } & LibraryGrant)
  /** Not a secret of a standing grant (never given, or its grant ended): nothing changed. */
  | { outcome: 'unknown' }

/**
 * Claims a code or refresh token by its hash, in one statement that only an unused secret of a
 * standing grant passes, so that of two requests racing with the same secret exactly one wins.
 * A secret used before ends its grant: whoever holds the grant's newer tokens may be a thief.
 */
export async function claimSecret(
  svc: Services,
  secretHash: string,
  kind: 'code' | 'refresh',
): Promise<Claim> {
  const now = svc.now()
  const db = svc.db
  const [claimed, [known]] = await db.batch([
    db
      .update(oauthSecrets)
      .set({ usedAt: now })
      .where(
        and(
          eq(oauthSecrets.secretHash, secretHash),
          eq(oauthSecrets.kind, kind),
          isNull(oauthSecrets.usedAt),
          inArray(
            oauthSecrets.grantId,
            db.select({ id: oauthGrants.grantId }).from(oauthGrants).where(standing(now)),
          ),
        ),
      )
      .returning({ grantId: oauthSecrets.grantId }),
    db
      .select({
        grantId: oauthGrants.grantId,
        subject: subjectOf,
        usedAt: oauthSecrets.usedAt,
        revokedAt: oauthGrants.revokedAt,
      })
      .from(oauthSecrets)
      .innerJoin(oauthGrants, eq(oauthGrants.grantId, oauthSecrets.grantId))
      .where(and(eq(oauthSecrets.secretHash, secretHash), eq(oauthSecrets.kind, kind))),
  ])
  if (!known) return { outcome: 'unknown' }
  const { grantId, subject } = known
  if (claimed.length === 1) return { outcome: 'claimed', grantId, subject }
  if (known.usedAt === null || known.revokedAt !== null) return { outcome: 'unknown' }
  await endGrant(svc, grantId, 'secret_reused')
  return { outcome: 'reused', grantId, subject }
}

/** Gives a claimed secret back when the library did not honour it: the client may try again. */
export async function releaseSecret(svc: Services, secretHash: string) {
  await svc.db
    .update(oauthSecrets)
    .set({ usedAt: null })
    .where(eq(oauthSecrets.secretHash, secretHash))
}

/**
 * What a token answer changed: the grant stands another idle period from now, and the refresh
 * token it carries (if any) becomes the grant's next one-time secret.
 */
export async function recordTokens(svc: Services, grantId: string, refreshHash: string | null) {
  const now = svc.now()
  const db = svc.db
  const extend = db
    .update(oauthGrants)
    .set({ expiresAt: now + GRANT_IDLE_MS })
    .where(and(eq(oauthGrants.grantId, grantId), isNull(oauthGrants.revokedAt)))
  if (refreshHash === null) {
    await extend.run()
    return
  }
  await db.batch([
    extend,
    db
      .insert(oauthSecrets)
      .values({ secretHash: refreshHash, grantId, kind: 'refresh', createdAt: now }),
  ])
}

/** The grant a refresh token belongs to, when it is one of a standing grant's. */
export async function grantOfSecret(svc: Services, secretHash: string) {
  const row = await svc.db
    .select({ grantId: oauthGrants.grantId, subject: subjectOf })
    .from(oauthSecrets)
    .innerJoin(oauthGrants, eq(oauthGrants.grantId, oauthSecrets.grantId))
    .where(and(eq(oauthSecrets.secretHash, secretHash), standing(svc.now())))
    .get()
  return row ?? null
}
