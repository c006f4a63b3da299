import type { Context } from 'hono'
import { randomBase62, sha256Hex } from '../lib/crypto'
import { AppError, ERROR_CODES, type ErrorCode } from '../lib/errors'
import {
  claimStatements,
  keepAnswer,
  releaseKey,
  sealFingerprint,
  settle,
  worthKeeping,
  type Keyed,
} from '../domain/idempotency'
import { presentedKeyHash } from '../http/actor/key'
import { requestId, type AppEnv } from '../http/context'
import { logError, toAppError } from '../http/errors'

// `idempotency_key` on the MCP tools that change something: the same rules as the API's
// Idempotency-Key header, with the tool and its arguments as the request. The first call under a
// key runs; its result is kept for a day and returned to a repeat, which changes nothing again.

export type Once = { result: unknown; replayed: boolean }

export async function once(
  c: Context<AppEnv>,
  key: string,
  tool: string,
  args: unknown,
  run: () => Promise<unknown>,
): Promise<Once> {
  const svc = c.var.svc
  const request: Keyed = {
    key,
    // The tool's name leads, so a tool call never matches an API request under the same key.
    fingerprint: await sealFingerprint(svc, await sha256Hex(`mcp ${tool} ${JSON.stringify(args)}`)),
    claim: randomBase62(20),
    at: svc.now(),
  }
  // The key or grant was authorized (with the write scope) before any tool ran: its claim cannot be
  // refused.
  const { grantId } = c.var.actor.by
  const credential = grantId ? { grantId } : { keyHash: await presentedKeyHash(c) }
  const [, [row]] = await svc.db.batch(claimStatements(svc, credential, request))
  const stored = settle(row, request)
  if (stored) {
    const kept: unknown = JSON.parse(stored.body)
    if (stored.status < 400) return { result: kept, replayed: true }
    // A failure worth keeping is the same failure again.
    const { code, message } = (kept as { error: { code: ErrorCode; message: string } }).error
    throw new AppError(ERROR_CODES.includes(code) ? code : 'internal_error', message)
  }
  const workspaceId = c.var.actor.workspaceId
  let result: unknown
  try {
    result = await run()
  } catch (err) {
    const error = toAppError(err)
    if (!worthKeeping(error.status, error.code)) {
      await releaseKey(svc, workspaceId, request)
      throw err
    }
    await keep({ error: { code: error.code, message: error.message } }, error.status)
    throw err
  }
  await keep(result, 200)
  return { result, replayed: false }

  // The call took effect (or failed for good): its answer goes out even when keeping it fails;
  // the key then stays claimed, and a retry meets 409 until the claim counts as abandoned.
  async function keep(answer: unknown, status: number) {
    try {
      await keepAnswer(svc, workspaceId, request, {
        status,
        contentType: 'application/json',
        location: null,
        body: JSON.stringify(answer),
      })
    } catch (err) {
      logError(err, requestId(c))
    }
  }
}
