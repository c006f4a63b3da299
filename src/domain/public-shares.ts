import { AppError } from '../lib/errors'
import { verifyPassword } from '../lib/crypto'
import { iso, type Services } from './services'
import { shareNotFound, type ShareRow } from './shares'

type Resolved = ShareRow & {
  title: string | null
  ext: string | null
  renderer_id: string | null
  canvas_created_at: number | null
  canvas_expires_at: number | null
  content_version: number | null
  size: number | null
  blob_key: string | null
}

export type ShareAccess = {
  token: string
  /** Present when the link has a password; checked before the hash is computed. */
  password?: string
  /** Called before each password check, so attempts can be rate-limited. */
  beforePasswordCheck?: () => Promise<void>
}

// The link, its canvas (when live) and the content it serves: pinned version or the latest.
const SELECT_SHARE = `
  SELECT s.*, c.title, c.ext, c.renderer_id, c.created_at AS canvas_created_at,
         c.expires_at AS canvas_expires_at, v.version AS content_version, v.size, f.blob_key
  FROM share_links s
  LEFT JOIN canvases c ON c.canvas_id = s.canvas_id
  LEFT JOIN versions v ON v.canvas_id = c.canvas_id AND v.version = COALESCE(s.version, c.version)
  LEFT JOIN files f ON f.file_id = v.file_id
  WHERE s.token = ?`

// A view counts only while the link is usable; the condition and the increment are one statement,
// so concurrent downloads can neither lose a count nor pass max_views.
const COUNT_VIEW = `
  UPDATE share_links SET view_count = view_count + 1
  WHERE token = ?1 AND (expires_at IS NULL OR expires_at > ?2)
    AND (max_views IS NULL OR view_count < max_views)
    AND EXISTS (SELECT 1 FROM canvases c WHERE c.canvas_id = share_links.canvas_id
                AND (c.expires_at IS NULL OR c.expires_at > ?2))`

/** Public metadata: never counts a view. */
export async function shareMetadata(svc: Services, access: ShareAccess) {
  const row = await svc.d1.prepare(SELECT_SHARE).bind(access.token).first<Resolved>()
  await admit(svc, row ?? undefined, access)
  return present(row!)
}

/**
 * Opens the link for one content delivery and counts it. A link without a password is checked,
 * counted and read in one batched round trip; a protected one needs a second after the password.
 */
export async function openShareContent(svc: Services, access: ShareAccess) {
  const now = svc.now()
  const [counted, selected] = await svc.d1.batch([
    svc.d1
      .prepare(`${COUNT_VIEW} AND password_hash IS NULL RETURNING view_count`)
      .bind(access.token, now),
    svc.d1.prepare(SELECT_SHARE).bind(access.token),
  ])
  let row = (selected.results as Resolved[])[0]
  if (counted.results.length === 0) {
    await admit(svc, row, access)
    const [recount, reselected] = await svc.d1.batch([
      svc.d1.prepare(`${COUNT_VIEW} RETURNING view_count`).bind(access.token, svc.now()),
      svc.d1.prepare(SELECT_SHARE).bind(access.token),
    ])
    row = (reselected.results as Resolved[])[0]
    // Someone else took the last view, or the link changed, between the two round trips.
    if (recount.results.length === 0) {
      checkUsable(svc, row)
      throw new AppError('share_exhausted', 'this share link has reached its view limit')
    }
  }
  return {
    blobKey: row.blob_key!,
    title: row.title!,
    ext: row.ext!,
    canvasId: row.canvas_id!,
    version: row.content_version!,
    rendererId: row.renderer_id!,
    size: row.size!,
    protected: row.password_hash !== null,
    /** Has a view limit: what is shown under it must not outlive the view by much. */
    limited: row.max_views !== null,
  }
}

/** The checks of a public share route (README: API), in order; returns only if the link is usable. */
async function admit(svc: Services, row: Resolved | undefined, access: ShareAccess) {
  checkUsable(svc, row)
  if (row.password_hash === null) return
  if (access.password === undefined || access.password === '') {
    throw new AppError(
      'share_password_required',
      'this share link needs a password: X-Share-Password',
    )
  }
  await access.beforePasswordCheck?.()
  if (!(await verifyPassword(access.password, row.password_hash))) {
    throw new AppError('share_password_invalid', 'wrong password for this share link')
  }
}

function checkUsable(svc: Services, row: Resolved | undefined): asserts row is Resolved {
  const now = svc.now()
  if (!row) throw shareNotFound()
  if (row.expires_at !== null && row.expires_at <= now) {
    throw new AppError('share_expired', 'this share link has expired')
  }
  const canvasLive =
    row.title !== null && (row.canvas_expires_at === null || row.canvas_expires_at > now)
  if (!canvasLive || row.blob_key === null) {
    throw new AppError('canvas_not_found', 'canvas not found')
  }
  if (row.max_views !== null && row.view_count >= row.max_views) {
    throw new AppError('share_exhausted', 'this share link has reached its view limit')
  }
}

function present(row: Resolved) {
  return {
    canvas: {
      title: row.title!,
      ext: row.ext!,
      renderer_id: row.renderer_id!,
      version: row.content_version!,
      size: row.size!,
      created_at: iso(row.canvas_created_at!),
    },
    share: {
      expires_at: row.expires_at === null ? null : iso(row.expires_at),
      view_count: row.view_count,
      has_password: row.password_hash !== null,
    },
  }
}
