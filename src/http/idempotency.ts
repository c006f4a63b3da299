import type { Context, Next } from 'hono'
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status'
import { randomBase62, sha256Hex } from '../lib/crypto'
import { AppError } from '../lib/errors'
import {
  claimedBy,
  claimStatements,
  keepAnswer,
  releaseKey,
  sealFingerprint,
  settle,
  worthKeeping,
  type Answer,
  type Keyed,
} from '../domain/idempotency'
import { authenticateKey, authorize, holdToNeed, presentedKeyHash } from './actor/key'
import { needOf } from './actor/admit'
import { requestId, type AppEnv } from './context'
import { logError, toAppError } from './errors'
import { requestFingerprint } from './fingerprint'
import { readBodyAhead } from './validate'
import { IDEMPOTENCY_KEY } from '../schema/requests'

export const IDEMPOTENCY_HEADER = 'Idempotency-Key'

/** The header as a route that takes it for a post without an API key documents it. */
export const POST_KEY_HEADER = {
  name: IDEMPOTENCY_HEADER,
  description:
    'Optional, 1 to 255 printable ASCII characters: the same post sent again with the same key ' +
    '(a double click, a retry) answers the comment or reply made the first time, and makes no other.',
}

const malformedKey = () =>
  new AppError('invalid_request', 'Idempotency-Key: must be 1 to 255 printable ASCII characters')

/**
 * A write sent with Idempotency-Key (docs/api.md). The key is claimed in the API key's
 * own batch, so the body is read and fingerprinted first, within the cap its route applies. Then
 * the request runs (its claim), is answered from the stored answer (a repeat), or is refused
 * (another request under the key, or the first still running). Its answer is kept when worth
 * replaying; otherwise the key is let go, so a retry runs afresh. Returns a replayed answer.
 *
 * What never reaches a claim is refused as before, the API key's verdict first: a malformed key
 * header (400) and a body over the cap (413) claim nothing, and neither do 401, 403 and 429.
 * The header's value is the client's: bound into SQL, never logged.
 */
export async function idempotent(
  c: Context<AppEnv>,
  next: Next,
  key: string,
): Promise<Response | void> {
  if (!IDEMPOTENCY_KEY.test(key)) {
    await authorize(c)
    throw malformedKey()
  }
  const hash = await presentedKeyHash(c)
  let body: Uint8Array
  try {
    body = await readBodyAhead(c)
  } catch (err) {
    await authorize(c)
    throw err
  }
  const svc = c.var.svc
  const request: Keyed = {
    key,
    fingerprint: await sealFingerprint(svc, await requestFingerprint(c, body)),
    claim: randomBase62(20),
    at: svc.now(),
  }
  const { actor, results } = await authenticateKey(
    c,
    hash,
    claimStatements(svc, hash, request),
    async (results, actor) => {
      // The claim requires a live key that writes: a refused one (its rate limit) may hold it,
      // and lets it go.
      if (actor && claimedBy(results[1][0], request)) {
        await releaseKey(svc, actor.workspaceId, request)
      }
    },
  )
  const release = () => releaseKey(svc, actor.workspaceId, request)
  // A credential that cannot write claims nothing: refused as the route's need says why.
  if (!actor.scopes.includes(needOf(c).need.scope)) await holdToNeed(c, actor, release)
  // A repeat is answered by its first answer, wherever that request acted (a workspace deleted
  // since): the rest of the route's need is held to a request that runs.
  const [, [row]] = results
  const stored = settle(row, request)
  if (stored) {
    c.set('actor', actor)
    return replay(c, stored)
  }
  await holdToNeed(c, actor, release)
  // The credential's own workspace, where its claim is, whichever workspace the route acts in.
  const workspaceId = c.var.actor.by.home ?? c.var.actor.workspaceId
  try {
    await next()
  } catch (err) {
    await releaseKey(svc, workspaceId, request)
    throw err
  }
  // Errors thrown by the route have become its answer by now; c.error keeps what was thrown.
  const code = c.error ? toAppError(c.error).code : null
  if (!worthKeeping(c.res.status, code)) {
    await releaseKey(svc, workspaceId, request)
    return
  }
  try {
    await keepAnswer(svc, workspaceId, request, await answerOf(c.res), c.var.keepAnswerMs)
  } catch (err) {
    // The request took effect: its answer goes out. The key stays claimed, so retries are 409
    // until the claim counts as abandoned.
    logError(err, requestId(c))
  }
}

/**
 * For a route whose answer goes stale within the day (it holds a signed URL): a repeat is
 * answered from the stored answer only for `ms`, and runs afresh afterwards.
 */
export function keepAnswerFor(c: Context<AppEnv>, ms: number) {
  c.set('keepAnswerMs', ms)
}

async function answerOf(res: Response): Promise<Answer> {
  return {
    status: res.status,
    contentType: res.headers.get('Content-Type'),
    location: res.headers.get('Location'),
    body: await res.clone().text(),
  }
}

function replay(c: Context<AppEnv>, answer: Answer): Response {
  const headers: Record<string, string> = { 'Idempotent-Replayed': 'true' }
  if (answer.contentType) headers['Content-Type'] = answer.contentType
  if (answer.location) headers.Location = answer.location
  // A 204 or a redirect has no body, and a Response must then be given none, not an empty one.
  if (answer.body === '') return c.body(null, answer.status as StatusCode, headers)
  return c.body(answer.body, answer.status as ContentfulStatusCode, headers)
}

/**
 * The Idempotency-Key of a comment or reply posted without an API key (a web session's, a share
 * link's reader's), bound to who sends it: the same post sent twice (a double click, a retry)
 * makes one (domain/comments/comments.ts). Hashed, so a key of any length is stored in a bounded form.
 * Undefined without the header; a malformed one is refused.
 */
export async function postKeyOf(c: Context, sender: string): Promise<string | undefined> {
  const key = c.req.header(IDEMPOTENCY_HEADER)
  if (key === undefined) return undefined
  if (!IDEMPOTENCY_KEY.test(key)) throw malformedKey()
  return sha256Hex(`${sender}\n${key}`)
}
