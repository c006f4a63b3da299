import { AppError } from '../lib/errors'
import { canvasNotFound, type VersionContent } from './canvases'
import type { Services } from './services'
import { LIVE } from './live'

// A content frame is reached through a signed URL, but the signature only says who the URL was
// issued to. The access it was issued under is checked again on every request, so withdrawing it
// (a link revoked or expired, a canvas made private or deleted, a session ended) ends the frame at
// once, not when the URL expires.

export type FrameGrant =
  /** The owner's web session, named by its public id. */
  | { kind: 'owner'; sessionId: string }
  /** Anyone, while the canvas is public. */
  | { kind: 'public' }
  /** A share link, while it is usable and serves this version. */
  | { kind: 'share'; token: string }

/** The grant as it travels in a frame URL (and is signed with it). */
export function encodeGrant(grant: FrameGrant): string {
  if (grant.kind === 'owner') return `o.${grant.sessionId}`
  if (grant.kind === 'share') return `s.${grant.token}`
  return 'p'
}

export function decodeGrant(value: string): FrameGrant | null {
  if (value === 'p') return { kind: 'public' }
  const match = /^([os])\.([A-Za-z0-9_-]{1,64})$/.exec(value)
  if (!match) return null
  return match[1] === 'o'
    ? { kind: 'owner', sessionId: match[2] }
    : { kind: 'share', token: match[2] }
}

const CONTENT = `
  SELECT c.title, c.ext, c.renderer_id, v.size, f.blob_key FROM canvases c
  JOIN versions v ON v.canvas_id = c.canvas_id AND v.version = ?1
  JOIN files f ON f.file_id = v.file_id
  WHERE c.canvas_id = ?2 AND ${LIVE.replace('?', '?3')}`

// Each condition is what the grant needs to hold right now; all in the one statement.
const CONDITION = {
  public: `AND c.visibility = 'public'`,
  owner: `AND EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = ?4
                      AND s.workspace_id = c.workspace_id AND s.expires_at > ?3)`,
  // A link that follows the latest version serves any version it was shown with; a pinned one
  // only its own. Used up is not checked: the view that used it up must still render, so such a
  // link's frames live only a short window instead (LIMITED_FRAME_SECONDS, web/frames.ts).
  share: `AND EXISTS (SELECT 1 FROM share_links l WHERE l.token = ?4 AND l.canvas_id = c.canvas_id
                      AND (l.expires_at IS NULL OR l.expires_at > ?3)
                      AND (l.version IS NULL OR l.version = v.version))`,
}

/** What one version holds, if the grant still reaches it; otherwise the 404 of that access. */
export async function contentUnderGrant(
  svc: Services,
  grant: FrameGrant,
  canvasId: string,
  version: number,
): Promise<VersionContent> {
  const params: unknown[] = [version, canvasId, svc.now()]
  if (grant.kind === 'owner') params.push(grant.sessionId)
  if (grant.kind === 'share') params.push(grant.token)
  const row = await svc.d1
    .prepare(`${CONTENT} ${CONDITION[grant.kind]}`)
    .bind(...params)
    .first<VersionContent>()
  if (row) return row
  if (grant.kind === 'share') {
    throw new AppError(
      'share_not_found',
      'this share link was revoked, has expired, or no longer shows this content',
    )
  }
  throw canvasNotFound()
}
