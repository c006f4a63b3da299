import { env } from 'cloudflare:test'
import { sweep } from '../../src/domain/sweep'
import { servicesOf } from '../../src/domain/services'

/**
 * Everything a workspace owns, as one comparable value: its canvases, versions, files, share
 * links, keys, sessions, idempotency keys, webhooks and storage objects. Equal snapshots mean a request changed nothing.
 * `last_used_at` is left out: an accepted key's use is recorded after any response.
 */
export async function snapshot(workspaceId: string) {
  const rows = (sql: string) => env.DB.prepare(sql).bind(workspaceId)
  const [canvases, versions, files, shares, keys, sessions, idempotency, webhooks] =
    await env.DB.batch([
      rows('SELECT * FROM canvases WHERE workspace_id = ? ORDER BY canvas_id'),
      rows(
        `SELECT v.* FROM versions v JOIN canvases c ON c.canvas_id = v.canvas_id
       WHERE c.workspace_id = ? ORDER BY v.canvas_id, v.version`,
      ),
      rows('SELECT * FROM files WHERE workspace_id = ? ORDER BY file_id'),
      rows(
        `SELECT s.* FROM share_links s JOIN canvases c ON c.canvas_id = s.canvas_id
       WHERE c.workspace_id = ? ORDER BY s.token`,
      ),
      rows(
        `SELECT key_id, name, prefix, key_hash, scopes, created_at, revoked_at FROM api_keys
       WHERE workspace_id = ? ORDER BY key_id`,
      ),
      rows('SELECT session_hash, expires_at FROM sessions WHERE workspace_id = ? ORDER BY 1'),
      rows('SELECT * FROM idempotency_keys WHERE workspace_id = ? ORDER BY key'),
      rows('SELECT * FROM webhooks WHERE workspace_id = ? ORDER BY webhook_id'),
    ])
  return {
    // Not readership's mark (viewed): the canvas's object sets it when it writes reads counted
    // earlier, whenever its alarm comes, not in answer to the request being checked.
    canvases: (canvases.results as Record<string, unknown>[]).map(
      ({ viewed: _, ...canvas }) => canvas,
    ),
    versions: versions.results,
    files: files.results,
    shares: shares.results,
    keys: keys.results,
    sessions: sessions.results,
    idempotency: idempotency.results,
    webhooks: webhooks.results,
    objects: await objectsOf(workspaceId),
  }
}

/** The workspace's storage objects (`files/<2 hex>/<workspace>/<sha256>`), with their sizes. */
export async function objectsOf(workspaceId: string) {
  const out: { key: string; size: number }[] = []
  let cursor: string | undefined
  do {
    const page = await env.BUCKET.list({ prefix: 'files/', cursor })
    for (const o of page.objects) {
      if (o.key.split('/')[2] === workspaceId) out.push({ key: o.key, size: o.size })
    }
    cursor = page.truncated ? page.cursor : undefined
  } while (cursor)
  return out.sort((a, b) => a.key.localeCompare(b.key))
}

/** The `n` of a `SELECT COUNT(*) AS n ...`. */
export async function countRows(sql: string, ...params: unknown[]): Promise<number> {
  return (await env.DB.prepare(sql)
    .bind(...params)
    .first<{ n: number }>())!.n
}

/** The domain's services on the test runtime's own bindings and settings, for calls made directly. */
export function realServices() {
  return servicesOf(env)
}

/** Runs the sweep with its clock at `now`, on the real bindings, until it says it is done. */
export async function sweepUntilDone(now: number) {
  const services = realServices()
  for (let i = 0; i < 10; i++) {
    if ((await sweep(services, { now })).complete) return
  }
  throw new Error('the sweep did not finish in 10 runs')
}
