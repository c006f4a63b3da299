import { and, eq, isNull, lte, or, sql } from 'drizzle-orm'
import { hmacHex } from '../lib/crypto'
import { AppError, type ErrorCode } from '../lib/errors'
import { secretFor } from '../lib/settings'
import { prepared, type Placeholders } from '../storage/db'
import { apiKeys, idempotencyKeys, oauthGrants } from '../storage/schema'
import { liveKey, liveWriteKey } from './keys'
import { liveGrant, liveWriteGrant } from './oauth/grants'
import type { Services } from './services'

// Idempotency-Key (docs/api.md): the first request sent with a key claims it for its
// workspace; its answer is kept for a day and replayed to a repeat of the same request, which has
// no second effect. The claim rides in the batch that looks up the API key, so it costs no round
// trip of its own; keeping the answer (or letting the key go) is the one round trip it adds.

export const ANSWER_TTL_MS = 24 * 3600_000
// A claim whose request never answered (its isolate stopped mid-request, so nothing let it go)
// is taken over after this long. The body is read before the claim, so a slow upload does not
// count; what runs under the claim is a few D1 and R2 calls.
const ABANDONED_AFTER_MS = 5 * 60_000

/**
 * What is stored of a request's digest: an HMAC under a server secret, since a body may hold a
 * secret of its own (a share link's password), which a bare SHA-256 in a copy of the database
 * would let anyone guess at hash speed.
 */
export function sealFingerprint(svc: Services, digest: string): Promise<string> {
  return hmacHex('idempotency:' + secretFor('CSRF_SECRET', svc.settings.csrfSecret), digest)
}

/** A request sent with a key: what it asks (the fingerprint), and its own mark on the claim. */
export type Keyed = {
  key: string
  fingerprint: string
  /** Random per request: whoever's claim the row holds is the request that runs. */
  claim: string
  at: number
}

export type Answer = {
  status: number
  contentType: string | null
  location: string | null
  body: string
}

type ClaimValues = {
  key: string
  fingerprint: string
  claim: string
  now: number
  expiresAt: number
  abandonedBefore: number
}

/** What a request's claim is made under: an API key (its hash), or an OAuth grant (its id). */
export type Credential = { keyHash: string } | { grantId: string }

/**
 * The claim and the key's row, for the batch that looks up the API key `keyHash`. That batch runs
 * before the key's scope and rate limit are judged, so the INSERT itself requires a live key with
 * the `write` scope, and takes its workspace from the key: a refused key claims nothing. A row
 * that expired, or whose request was abandoned, is taken over as if it were absent. Under an
 * OAuth grant the same holds of the grant: standing, with the `write` scope.
 */
export function claimStatements(svc: Services, credential: string | Credential, request: Keyed) {
  const values: ClaimValues = {
    key: request.key,
    fingerprint: request.fingerprint,
    claim: request.claim,
    now: request.at,
    expiresAt: request.at + ANSWER_TTL_MS,
    abandonedBefore: request.at - ABANDONED_AFTER_MS,
  }
  const by = typeof credential === 'string' ? { keyHash: credential } : credential
  if ('grantId' in by) {
    const claim = claimByGrant(svc.db, { ...values, grantId: by.grantId })
    const row = existingByGrant(svc.db, { grantId: by.grantId, key: request.key, now: request.at })
    return [claim, row] as [typeof claim, typeof row]
  }
  const claim = claimByKey(svc.db, { ...values, keyHash: by.keyHash })
  const row = existing(svc.db, { keyHash: by.keyHash, key: request.key })
  return [claim, row] as [typeof claim, typeof row]
}

/** The columns of a new claim after its workspace, which comes from the credential. */
const claimColumns = (p: Placeholders<ClaimValues>) => ({
  // Bound values selected into columns, each named for its column.
  key: sql<string>`${p('key')}`.as('key'),
  fingerprint: sql<string>`${p('fingerprint')}`.as('fingerprint'),
  claim: sql<string>`${p('claim')}`.as('claim'),
  createdAt: sql<number>`${p('now')}`.as('created_at'),
  expiresAt: sql<number>`${p('expiresAt')}`.as('expires_at'),
  status: sql<null>`NULL`.as('status'),
  contentType: sql<null>`NULL`.as('content_type'),
  location: sql<null>`NULL`.as('location'),
  body: sql<null>`NULL`.as('body'),
})

/** A claim on an expired or abandoned row takes it over; any other row stays as it is. */
const takeOver = (p: Placeholders<ClaimValues>) => ({
  target: [idempotencyKeys.workspaceId, idempotencyKeys.key],
  // excluded.*: the row this INSERT would have written; the builder has no word for it.
  set: {
    fingerprint: sql`excluded.fingerprint`,
    claim: sql`excluded.claim`,
    createdAt: sql`excluded.created_at`,
    expiresAt: sql`excluded.expires_at`,
    status: null,
    contentType: null,
    location: null,
    body: null,
  },
  setWhere: or(
    lte(idempotencyKeys.expiresAt, p('now')),
    and(isNull(idempotencyKeys.status), lte(idempotencyKeys.createdAt, p('abandonedBefore'))),
  ),
})

const claimByKey = prepared((db, p: Placeholders<ClaimValues & { keyHash: string }>) =>
  db
    .insert(idempotencyKeys)
    .select((qb) =>
      qb
        .select({ workspaceId: apiKeys.workspaceId, ...claimColumns(p) })
        .from(apiKeys)
        .where(liveWriteKey(p('keyHash'))),
    )
    .onConflictDoUpdate(takeOver(p)),
)

const claimByGrant = prepared((db, p: Placeholders<ClaimValues & { grantId: string }>) =>
  db
    .insert(idempotencyKeys)
    .select((qb) =>
      qb
        .select({ workspaceId: oauthGrants.workspaceId, ...claimColumns(p) })
        .from(oauthGrants)
        .where(liveWriteGrant(p('grantId'), p('now'))),
    )
    .onConflictDoUpdate(takeOver(p)),
)

const ROW_FIELDS = {
  fingerprint: idempotencyKeys.fingerprint,
  claim: idempotencyKeys.claim,
  status: idempotencyKeys.status,
  contentType: idempotencyKeys.contentType,
  location: idempotencyKeys.location,
  body: idempotencyKeys.body,
}

const existing = prepared((db, p: Placeholders<{ keyHash: string; key: string }>) =>
  db
    .select(ROW_FIELDS)
    .from(idempotencyKeys)
    .innerJoin(apiKeys, eq(apiKeys.workspaceId, idempotencyKeys.workspaceId))
    .where(and(liveKey(p('keyHash')), eq(idempotencyKeys.key, p('key')))),
)

const existingByGrant = prepared(
  (db, p: Placeholders<{ grantId: string; key: string; now: number }>) =>
    db
      .select(ROW_FIELDS)
      .from(idempotencyKeys)
      .innerJoin(oauthGrants, eq(oauthGrants.workspaceId, idempotencyKeys.workspaceId))
      .where(and(liveGrant(p('grantId'), p('now')), eq(idempotencyKeys.key, p('key')))),
)

export type IdempotencyRow = ReturnType<typeof existing>['_']['result'][number]

/** Whether the key's row holds this request's claim. */
export const claimedBy = (row: IdempotencyRow | undefined, request: Keyed) =>
  row?.claim === request.claim

/**
 * What the key's row says to the request that made the batch: null when the claim is its own (it
 * runs, and must then keep its answer or let the key go); the stored answer when it repeats the
 * request that holds the key; 422 when it is another request, 409 while the first is running.
 */
export function settle(row: IdempotencyRow | undefined, request: Keyed): Answer | null {
  // A key the batch lets through has claimed or found the row: none at all is our bug.
  if (!row) throw new Error('no idempotency row after a granted claim')
  if (claimedBy(row, request)) return null
  if (row.fingerprint !== request.fingerprint) {
    throw new AppError(
      'idempotency_key_reused',
      'Idempotency-Key: this key was sent with a different request (method, path or body); use a new key for a new request',
    )
  }
  if (row.status === null) {
    throw new AppError(
      'idempotency_in_progress',
      'Idempotency-Key: a request with this key is still running; retry when it has answered',
      { 'Retry-After': '1' },
    )
  }
  return {
    status: row.status,
    contentType: row.contentType,
    location: row.location,
    body: row.body ?? '',
  }
}

// Answers that tell the client to do something, or wait, and send the same request again: kept,
// they would be replayed to the very retry they ask for.
const RETRY_CODES = new Set<ErrorCode>([
  'upload_incomplete',
  'checksum_mismatch',
  'conflict',
  'rate_limited',
])

/**
 * Whether an answer is kept for replay: successes and the client's own errors are (the same
 * request would be answered the same), server errors and answers that ask for a retry are not.
 */
export function worthKeeping(status: number, code: ErrorCode | null): boolean {
  return status < 500 && !(code && RETRY_CODES.has(code))
}

/**
 * Keeps the answer under the claim, for a day from the claim or `keepMs` from now if sooner.
 * A claim taken over meanwhile (its request ran past ABANDONED_AFTER_MS) keeps nothing.
 */
export async function keepAnswer(
  svc: Services,
  workspaceId: string,
  request: Keyed,
  answer: Answer,
  keepMs = ANSWER_TTL_MS,
) {
  await svc.db
    .update(idempotencyKeys)
    .set({
      status: answer.status,
      contentType: answer.contentType,
      location: answer.location,
      body: answer.body,
      expiresAt: Math.min(request.at + ANSWER_TTL_MS, svc.now() + keepMs),
    })
    .where(heldBy(workspaceId, request))
}

/** Lets the key go, so that a retry runs as if the key had never been sent. */
export async function releaseKey(svc: Services, workspaceId: string, request: Keyed) {
  await svc.db
    .delete(idempotencyKeys)
    .where(and(heldBy(workspaceId, request), isNull(idempotencyKeys.status)))
}

const heldBy = (workspaceId: string, request: Keyed) =>
  and(
    eq(idempotencyKeys.workspaceId, workspaceId),
    eq(idempotencyKeys.key, request.key),
    eq(idempotencyKeys.claim, request.claim),
  )
