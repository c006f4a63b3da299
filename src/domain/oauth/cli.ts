import { and, eq } from 'drizzle-orm'
import type { Scope } from '../../schema/requests'
import { apiKeys, members, oauthGrants, serviceValues } from '../../storage/schema'
import { value } from '../../storage/db'
import type { Services } from '../services'
import { keyCreated, newKey, presentKey } from '../keys'
import { announceAudit, auditStatement, recordOf, type AuditRow } from '../audit/record'
import type { Actor } from '../actor'
import { liveGrant } from './grants'

// The deployment's own CLI as an OAuth client (docs/cli.md#logging-in). `svc login` signs in as
// this one client, which the deployment registers with the OAuth library the first time it is
// asked for and names in its metadata; only this client may turn what a person approved into an
// API key (a token exchange, a device code). Any other app keeps the grant it was given, which the
// person sees and can end in Settings.

const CLI_CLIENT = 'cli_client_id'

/**
 * The CLI's client id: made by `register` the first time; when two requests make one at once,
 * the one written first is kept and the other is handed to `discard`.
 */
export async function ownCliClient(
  svc: Services,
  register: () => Promise<string>,
  discard: (clientId: string) => Promise<unknown>,
): Promise<string> {
  const found = await storedCliClient(svc)
  if (found) return found
  const made = await register()
  await svc.db.insert(serviceValues).values({ name: CLI_CLIENT, value: made }).onConflictDoNothing()
  const kept = await storedCliClient(svc)
  if (kept !== made) await discard(made)
  return kept ?? made
}

/** The CLI's client id, or null before the deployment has made one. */
export async function storedCliClient(svc: Services): Promise<string | null> {
  const row = await svc.db
    .select({ value: serviceValues.value })
    .from(serviceValues)
    .where(eq(serviceValues.name, CLI_CLIENT))
    .get()
  return row?.value ?? null
}

/**
 * RFC 8693 for the CLI: a standing grant becomes an API key of the same person, bound to the
 * grant's workspace, with the grant's scopes (`scopes`, those of the token presented) and the
 * person's role there now; the grant ends. In one batch, so that exchanges of one grant at once
 * make one key: the key is made only while the grant stands, and the grant ends in the same
 * transaction. Null when it no longer stands, or its person is no longer a member.
 */
export async function exchangeGrantForKey(
  svc: Services,
  grant: Actor,
  name: string,
  scopes: Scope[],
) {
  const db = svc.db
  const now = svc.now()
  const grantId = grant.by.grantId!
  const { secret, row, keyHash } = await newKey(svc, name, scopes)
  const [made, recordedKey, , recordedEnd] = await db.batch([
    db
      .insert(apiKeys)
      .select(
        db
          .select({
            keyId: value(apiKeys.keyId, row.keyId),
            workspaceId: oauthGrants.workspaceId,
            userId: oauthGrants.userId,
            name: value(apiKeys.name, row.name),
            prefix: value(apiKeys.prefix, row.prefix),
            keyHash: value(apiKeys.keyHash, keyHash),
            scopes: value(apiKeys.scopes, row.scopes),
            role: members.role,
            origin: value(apiKeys.origin, 'exchange'),
            createdAt: value(apiKeys.createdAt, row.createdAt),
            lastUsedAt: value(apiKeys.lastUsedAt, null),
            revokedAt: value(apiKeys.revokedAt, null),
          })
          .from(oauthGrants)
          .innerJoin(
            members,
            and(
              eq(members.workspaceId, oauthGrants.workspaceId),
              eq(members.userId, oauthGrants.userId),
            ),
          )
          .where(liveGrant(grantId, now)),
      )
      .returning({ keyId: apiKeys.keyId }),
    recordOf(svc, grant, keyCreated(row)),
    db.update(oauthGrants).set({ revokedAt: now, expiresAt: now }).where(liveGrant(grantId, now)),
    auditStatement(
      svc,
      grant.workspaceId,
      { kind: grant.by.kind, userId: grant.userId, name: grant.by.name },
      {
        action: 'oauth.disconnected',
        target: { type: 'app', id: grantId },
        details: { app: grant.by.name, reason: 'exchanged' },
      },
    ),
  ])
  if (made.length !== 1) return null
  announceAudit(svc, recordedKey as AuditRow[], recordedEnd as AuditRow[])
  await svc.access?.end(grant.userId, { tag: `grant:${grantId}` })
  return { ...presentKey(row), key: secret }
}
