import { env } from 'cloudflare:test'
import { expect } from 'vitest'
import { errorOf } from './api'

// Helpers for the Idempotency-Key tests: a fresh key, the rows a workspace holds, and the two
// answers only the header can give.

/** A key no other test uses. */
export const freshKey = () => `retry-${crypto.randomUUID()}`

export const withKey = (key: string, headers: Record<string, string> = {}) => ({
  headers: { ...headers, 'Idempotency-Key': key },
})

export type KeyRow = {
  key: string
  fingerprint: string
  claim: string
  created_at: number
  expires_at: number
  status: number | null
  content_type: string | null
  location: string | null
  body: string | null
}

/** The workspace's idempotency rows, by key. */
export async function keyRows(workspaceId: string): Promise<KeyRow[]> {
  const { results } = await env.DB.prepare(
    'SELECT * FROM idempotency_keys WHERE workspace_id = ? ORDER BY key',
  )
    .bind(workspaceId)
    .all<KeyRow>()
  return results
}

/** Moves a stored key back in time, as if `ms` had passed since its request. */
export async function age(workspaceId: string, key: string, ms: number) {
  await env.DB.prepare(
    `UPDATE idempotency_keys SET created_at = created_at - ?1, expires_at = expires_at - ?1
     WHERE workspace_id = ?2 AND key = ?3`,
  )
    .bind(ms, workspaceId, key)
    .run()
}

export const reused = errorOf(
  'idempotency_key_reused',
  'Idempotency-Key: this key was sent with a different request (method, path or body); use a new key for a new request',
)
export const inProgress = errorOf(
  'idempotency_in_progress',
  'Idempotency-Key: a request with this key is still running; retry when it has answered',
)

/** Status, body and content type of a first answer, to compare its replay with. */
export async function answerOf(res: Response) {
  return {
    status: res.status,
    type: res.headers.get('Content-Type'),
    body: await res.text(),
  }
}

/** `res` is the replay of `first`: the same answer, marked as replayed. */
export async function expectReplay(res: Response, first: Awaited<ReturnType<typeof answerOf>>) {
  expect(res.headers.get('Idempotent-Replayed')).toBe('true')
  expect(await answerOf(res)).toEqual(first)
}

/** Counts the workspace's canvases, deleted ones excepted. */
export async function canvasCount(workspaceId: string): Promise<number> {
  const row = await env.DB.prepare('SELECT COUNT(*) AS n FROM canvases WHERE workspace_id = ?')
    .bind(workspaceId)
    .first<{ n: number }>()
  return row!.n
}
