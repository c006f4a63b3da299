import { env } from 'cloudflare:test'

/**
 * Seeds many canvases straight into D1 (the API would take minutes for thousands), all pointing at
 * one finalized file of the workspace and found by search by `text`. Returns their ids.
 */
export async function seedCanvases(
  workspaceId: string,
  userId: string,
  fileId: string,
  count: number,
  expiresAt: number | null,
  text = 'seeded canvas',
): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) =>
    `seed${expiresAt ?? 'p'}x${count}x${i}`.slice(0, 64),
  )
  const now = Date.now()
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = JSON.stringify(ids.slice(i, i + 500))
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
                               visibility, version, created_at, updated_at, expires_at)
         SELECT value, ?, ?, 'seeded', 'txt', 'text', 'private', 1, ?, ?, ? FROM json_each(?)`,
      ).bind(workspaceId, userId, now, now, expiresAt, chunk),
      env.DB.prepare(
        `INSERT INTO versions (canvas_id, version, file_id, size, created_at, main_path, item_count,
                               workspace_id)
         SELECT value, 1, f.file_id, f.size, ?, 'index.txt', 1, f.workspace_id
         FROM json_each(?) JOIN files f ON f.file_id = ?`,
      ).bind(now, chunk, fileId),
      env.DB.prepare(
        `INSERT INTO version_items (canvas_id, version, path, file_id)
         SELECT value, 1, 'index.txt', ? FROM json_each(?)`,
      ).bind(fileId, chunk),
      env.DB.prepare(
        `INSERT INTO canvas_texts (canvas_id, workspace_id, title, body)
         SELECT value, ?, 'seeded', ? FROM json_each(?)`,
      ).bind(workspaceId, text, chunk),
    ])
  }
  return ids
}
