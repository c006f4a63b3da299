import { checkedBy } from '../../http/actor/steps'
import { Hono, type Context } from 'hono'
import type { AppEnv } from '../../http/context'
import { limitByIp } from '../../http/limits'
import { id as idSchema } from '../../schema/requests'
import { liveUnderGrant, type FrameGrant, type LiveAccess } from '../../domain/frame-access'
import { AppError } from '../../lib/errors'
import {
  LIVE_APPROVED_HEADER,
  LIVE_CANVAS_EXPIRES_HEADER,
  LIVE_LINK_EXPIRES_HEADER,
  LIVE_TAGS_HEADER,
  LIVE_UP_TO_HEADER,
  LIVE_VERSION_HEADER,
} from '../../lib/live-events'
import { frameUrls, LIVE_VERSION, verifyFrame } from './links'

// A page's live link, mounted at LIVE_PATH: the WebSocket that hears of new versions (handed to
// the canvas's Durable Object once the access it was signed under holds), and the frame of a
// version that landed. Public routes like frames: the signature is the credential, and its access
// is checked again at each use, so a link revoked or a canvas made private ends it.
export const live = new Hono<AppEnv>()

live.use('*', limitByIp('FRAME_LIMITER'))

live.get('/:id', checkedBy('signed'), async (c) => {
  if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
    throw new AppError('invalid_request', 'this is a WebSocket: send Upgrade: websocket')
  }
  const { canvasId, grant, access } = await underGrant(c)
  const namespace = c.env.LIVE
  const tags = tagsOf(grant, access)
  // A member's socket is where their session listens: its end (a logout, a removal) closes it.
  if (access.userId !== null) {
    const watched = tags.filter((t) => t.startsWith('person:') || t.startsWith('session:'))
    const watch = { canvasId, workspaceId: access.workspaceId, tags: watched }
    await c.var.svc.access?.watch(access.userId, watch)
  }
  const headers = new Headers(c.req.raw.headers)
  headers.set(LIVE_TAGS_HEADER, JSON.stringify(tags))
  headers.set(LIVE_VERSION_HEADER, String(access.version))
  // Set or removed, never left as the client sent them.
  numberHeader(headers, LIVE_CANVAS_EXPIRES_HEADER, access.canvasExpiresAt)
  numberHeader(headers, LIVE_LINK_EXPIRES_HEADER, access.linkExpiresAt)
  numberHeader(headers, LIVE_UP_TO_HEADER, access.upTo)
  if (access.gated) headers.set(LIVE_APPROVED_HEADER, '1')
  else headers.delete(LIVE_APPROVED_HEADER)
  return namespace.get(namespace.idFromName(canvasId)).fetch(new Request(c.req.raw, { headers }))
})

// The frame of the version the socket announced; always the current one, which is the newest.
live.get('/:id/frame', checkedBy('signed'), async (c) => {
  const { canvasId, grant, access, app } = await underGrant(c)
  const version = access.version
  const frame = await frameUrls(c.var.svc, app, { canvasId, version, grant })
  c.header('Cache-Control', 'no-store')
  return c.json({ version, src: frame.src, download: frame.download })
})

/** The link's grant and what the socket needs of its canvas, if the signature and access hold. */
async function underGrant(c: Context<AppEnv>) {
  const svc = c.var.svc
  const canvasId = c.req.param('id') ?? ''
  const query = c.req.query()
  const grant = idSchema.safeParse(canvasId).success
    ? await verifyFrame(svc, canvasId, LIVE_VERSION, query)
    : null
  if (!grant) throw new AppError('forbidden', 'this live link is invalid or has expired')
  // Only the page the link was made for opens it (a browser always sends Origin with a socket).
  const app = query.app ?? ''
  const origin = c.req.header('Origin')
  if (origin !== undefined && origin !== app) {
    throw new AppError('forbidden', 'cross-origin request refused')
  }
  const access = await liveUnderGrant(svc, grant, canvasId)
  if (!access) {
    throw grant.kind === 'share'
      ? new AppError('share_not_found', 'this share link was revoked or has expired')
      : new AppError('canvas_not_found', 'canvas not found')
  }
  return { canvasId, grant, access, app }
}

function numberHeader(headers: Headers, name: string, value: number | null) {
  if (value === null) headers.delete(name)
  else headers.set(name, String(value))
}

/**
 * The tags a socket is accepted with, so that an end of access reaches exactly its sockets, and
 * comments only the sockets of those who may read them.
 */
function tagsOf(grant: FrameGrant, access: LiveAccess): string[] {
  const { comments, userId } = access
  const tags =
    grant.kind === 'owner'
      ? ['owner', `session:${grant.sessionId}`, ...(userId ? [`person:${userId}`] : [])]
      : grant.kind === 'share'
        ? ['share', `share:${grant.token}`]
        : ['public']
  if (!comments) return tags
  return [...tags, 'comments', grant.kind === 'owner' ? 'comments:member' : 'comments:visitor']
}
