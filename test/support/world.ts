import {
  bytesOf,
  call,
  csrfOf,
  formPost,
  json,
  newAccount,
  newCanvas,
  sha256,
  type Account,
} from './api'
import {
  approvedCode,
  authorizeUrl,
  cliClient,
  HTTPS,
  pkce,
  register,
  tokenRequest,
  REDIRECT,
} from './oauth'
import type { Route } from './routes'
import { newTeam } from './teams'
import { createWebhook, hook } from './webhooks'

/**
 * Two workspaces for the security tests: the owner's, with a canvas, a share link and keys of
 * every kind, and another one, whose key and session must never reach the owner's data.
 */
export type World = {
  owner: Account
  readOnlyKey: string
  revokedKey: string
  spareKeyId: string
  canvasId: string
  /** Another canvas of the owner's, for the page's delete: the API's removes the first. */
  spareCanvasId: string
  title: string
  /** A share link of the canvas that allows comments, protected by `sharePassword`. */
  token: string
  /** A comment on the canvas, and a reply to it. */
  commentId: string
  replyId: string
  /**
   * A review the member asked of another canvas of the owner's, naming no one: the owner may
   * decide it, and the world's canvas has none pending (asking for one succeeds).
   */
  reviewId: string
  /** A review of that canvas the owner approved already: a wait for it answers at once. */
  decidedReviewId: string
  /** Another comment with its reply, for the owner page's own routes. */
  pageComment: { commentId: string; replyId: string }
  sharePassword: string
  content: { sha256: string; ext: string; size: number; mime: string; fileId: string }
  other: Account
  otherCanvasId: string
  /** The CSRF token of the owner's session, for the web app's forms. */
  csrf: string
  /** A signed PUT URL for content nobody has: any bytes sent to it are the wrong ones. */
  uploadUrl: string
  /** A webhook of the owner's, sent to the tests' receiver. */
  webhookId: string
  /** A chat app registered with the OAuth server, and a request of its to authorize. */
  oauth: { clientId: string; authorize: string; grantId: string }
  /** A second member of the owner's workspace (an editor), and a pending invite to it. */
  member: Account
  inviteId: string
  /** An invite for the owner to the other account's workspace: joining it is the owner's. */
  joinToken: string
  /** Another, to a team of the other account's, for the join page's form. */
  pageJoinToken: string
  /** A password reset link the owner made for the member. */
  resetToken: string
  /** The user code of a device sign-in the world's app started, for the device page. */
  userCode: string
}

export async function buildWorld(): Promise<World> {
  const owner = await newAccount()
  const title = `Owner plan ${crypto.randomUUID().slice(0, 8)}`
  const text = `owner content ${crypto.randomUUID()}`
  const canvas = await newCanvas(owner.key, text, { title, permanent: true })
  const spareCanvas = await newCanvas(owner.key, 'spare content', {
    title: 'Spare',
    permanent: true,
  })
  const detail = await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: owner.key }))
  const sharePassword = 'open sesame'
  const share = await json(
    await call(`/v1/canvases/${canvas.canvas_id}/shares`, {
      method: 'POST',
      key: owner.key,
      json: { password: sharePassword, allow_comments: true },
    }),
  )
  const commentsPath = `/v1/canvases/${canvas.canvas_id}/comments`
  const comment = await json(
    await call(commentsPath, { method: 'POST', key: owner.key, json: { body: 'A first look' } }),
  )
  const reply = await json(
    await call(`${commentsPath}/${comment.comment_id}/replies`, {
      method: 'POST',
      key: owner.key,
      json: { body: 'Seen' },
    }),
  )
  // The owner page's own comment and reply, so that its deletes and the API's each have theirs.
  const pageComment = await json(
    await call(commentsPath, { method: 'POST', key: owner.key, json: { body: 'On the page' } }),
  )
  const pageReply = await json(
    await call(`${commentsPath}/${pageComment.comment_id}/replies`, {
      method: 'POST',
      key: owner.key,
      json: { body: 'Noted' },
    }),
  )
  const createKey = async (scopes: string[]) =>
    json(
      await call('/auth/keys', {
        method: 'POST',
        cookie: owner.cookie,
        json: { name: 'k', scopes },
      }),
    )
  const readOnly = await createKey(['read'])
  const revoked = await createKey(['read', 'write'])
  await call(`/auth/keys/${revoked.key_id}`, { method: 'DELETE', cookie: owner.cookie })
  const spare = await createKey(['read'])
  const other = await newAccount()
  const otherCanvas = await newCanvas(other.key, 'other content', { title: 'Other canvas' })
  const unknown = { sha256: 'e'.repeat(64), ext: 'bin', size: 16, mime: 'application/octet-stream' }
  const presigned = await json(
    await call('/v1/upload/presign', { method: 'POST', key: owner.key, json: unknown }),
  )
  // An app the owner connected (its grant is one Settings can disconnect), and a request of it.
  const client = await register()
  const { code, verifier } = await approvedCode(owner, client, 'canvas:read')
  await tokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    code_verifier: verifier,
  })
  const { challenge } = await pkce()
  const authorize = authorizeUrl(client.client_id, {
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  const webhook = await createWebhook(owner.key, { url: hook().url, events: ['canvas.deleted'] })
  const member = await newAccount()
  await call(`/auth/join/${(await inviteTo(owner, 'editor')).token}`, {
    method: 'POST',
    cookie: member.cookie,
  })
  const { reviewId, decidedReviewId } = await reviewsByMember(owner, member)
  const reset = await json(
    await call(`/v1/workspaces/${owner.workspaceId}/members/${member.userId}/reset-link`, {
      method: 'POST',
      key: owner.key,
    }),
  )
  const device = await json(
    await call(`${HTTPS}/oauth/device_authorization`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: (await cliClient()).client_id }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    }),
  )
  const pending = await inviteTo(owner, 'viewer')
  const toOther = await inviteTo(other, 'viewer')
  const otherTeam = await json(
    await call('/v1/workspaces', { method: 'POST', key: other.key, json: { name: 'Other team' } }),
  )
  const toTeam = await inviteTo({ ...other, workspaceId: otherTeam.workspace_id }, 'viewer')
  return {
    pageJoinToken: toTeam.token,
    resetToken: reset.url.split('/reset/')[1],
    userCode: device.user_code,
    owner,
    member,
    inviteId: pending.invite_id,
    joinToken: toOther.token,
    webhookId: webhook.webhook_id,
    reviewId,
    decidedReviewId,
    readOnlyKey: readOnly.key,
    revokedKey: revoked.key,
    spareKeyId: spare.key_id,
    canvasId: canvas.canvas_id,
    spareCanvasId: spareCanvas.canvas_id,
    title,
    token: share.token,
    commentId: comment.comment_id,
    replyId: reply.reply_id,
    pageComment: { commentId: pageComment.comment_id, replyId: pageReply.reply_id },
    sharePassword,
    content: {
      sha256: await sha256(bytesOf(text)),
      ext: 'txt',
      size: bytesOf(text).byteLength,
      mime: 'text/plain',
      fileId: detail.file.file_id,
    },
    other,
    otherCanvasId: otherCanvas.canvas_id,
    csrf: await csrfOf(owner.cookie),
    uploadUrl: presigned.upload_url,
    oauth: { clientId: client.client_id, authorize, grantId: code.split(':')[1] },
  }
}

/**
 * Two reviews `member` (an editor of the owner's workspace) asks of a canvas of the owner's: one
 * the owner approves at once, then one left pending.
 */
async function reviewsByMember(owner: Account, member: Account) {
  const canvas = await newCanvas(owner.key, 'reviewed content', { title: 'Reviewed' })
  const made = await call('/auth/keys', {
    method: 'POST',
    cookie: member.cookie,
    json: { name: 'member key', workspace_id: owner.workspaceId },
  })
  const key = (await json(made)).key as string
  const ask = async () => {
    const review = await call(`/v1/canvases/${canvas.canvas_id}/reviews`, {
      method: 'POST',
      key,
      json: { note: 'Have a look' },
    })
    return (await json(review)).review_id as string
  }
  const decidedReviewId = await ask()
  await call(`/v1/reviews/${decidedReviewId}/decisions`, {
    method: 'POST',
    key: owner.key,
    json: { decision: 'approve' },
  })
  return { decidedReviewId, reviewId: await ask() }
}

async function inviteTo(account: Account, role: string) {
  const res = await call(`/v1/workspaces/${account.workspaceId}/invites`, {
    method: 'POST',
    key: account.key,
    json: { role },
  })
  const invite = await json(res)
  return { invite_id: invite.invite_id as string, token: invite.url.split('/join/')[1] as string }
}

/** The owner's credentials for what `route` asks: a key, the session cookie, or nothing. */
export function ownerCredentials(route: Route, world: World): { key?: string; cookie?: string } {
  if (route.auth === 'key') return { key: world.owner.key }
  if (['session', 'page', 'viewer'].includes(route.auth)) return { cookie: world.owner.cookie }
  return {}
}

export type Prepared = { path: string; init: Parameters<typeof call>[1] & {} }

/**
 * A request to `route` that would succeed for the owner, with no credentials attached: the tests
 * add the header, cookie or signature they are checking. Paths point at the owner's data.
 */
/**
 * `requestFor` where every route is to succeed for the owner: deleting a workspace names a team
 * made for it, the world's own being the owner's personal one, which cannot be deleted.
 */
export async function succeedingRequests(world: World) {
  const doomed = await newTeam(world.owner, 'Doomed')
  return (route: Route): Prepared => {
    const prepared = requestFor(route, world)
    const deletesWorkspace =
      route.method === 'DELETE' && route.path === '/v1/workspaces/:workspace_id'
    return deletesWorkspace ? { ...prepared, path: `/v1/workspaces/${doomed}` } : prepared
  }
}

export function requestFor(route: Route, world: World): Prepared {
  if (route.path === '/oauth/authorize') {
    const init = route.method === 'POST' ? formPost({ decision: 'approve' }) : {}
    return { path: world.oauth.authorize, init: { method: route.method, ...init } }
  }
  const ids = route.path.startsWith('/c/:id/comments')
    ? world.pageComment
    : { commentId: world.commentId, replyId: world.replyId }
  const path =
    (route.https ? HTTPS : '') +
    route.path
      .replace(/^\/c\/:id\/delete$/, `/c/${world.spareCanvasId}/delete`)
      .replace(':id', world.canvasId)
      // A single file is the item `index.<ext>` of its version.
      .replace(':path{.+}', `index.${world.content.ext}`)
      .replace(':version', '1')
      .replace(':pair', '1-1')
      .replace('/auth/join/:token', `/auth/join/${world.joinToken}`)
      .replace('/join/:token', `/join/${world.pageJoinToken}`)
      .replace('/reset/:token', `/reset/${world.resetToken}`)
      .replace(':inviteId', world.inviteId)
      .replace(':userId', world.member.userId)
      .replace(':token', world.token)
      .replace(':workspace_id', world.owner.workspaceId)
      .replace(':user_id', world.member.userId)
      .replace(':invite_id', world.inviteId)
      .replace(':key_id', world.spareKeyId)
      .replace(':keyId', world.spareKeyId)
      .replace(':grantId', world.oauth.grantId)
      .replace(':comment_id', ids.commentId)
      .replace(':reply_id', ids.replyId)
      .replace(':webhook_id', world.webhookId)
      .replace(/^\/v1\/reviews\/:review_id\/wait$/, `/v1/reviews/${world.decidedReviewId}/wait`)
      .replace(':review_id', world.reviewId)
      .replace(':webhookId', world.webhookId)
      .replace(/\/diff$/, '/diff?from=1&to=1')
      // The world's comment is news since then: the wait answers at once.
      .replace(/\/comments\/wait$/, '/comments/wait?since=2000-01-01T00:00:00Z')
      .replace(/^\/v1\/search$/, '/v1/search?q=owner')
      .replace('/_storage/*', `/_storage/files/00/${world.owner.workspaceId}/${'0'.repeat(64)}`)
  const init: Prepared['init'] = { method: route.method }
  const { sha256: hash, ext, size, mime } = world.content
  const bodies: Record<string, unknown> = {
    'POST /v1/upload/presign': { sha256: 'f'.repeat(64), ext: 'txt', size: 3, mime: 'text/plain' },
    'POST /v1/upload/finalize': { sha256: hash, ext, size, mime },
    'POST /v1/canvases': { file_id: world.content.fileId, title: 'copy', ext: 'txt' },
    'PATCH /v1/canvases/:id': { title: 'renamed' },
    'POST /v1/canvases/:id/shares': { expires_in: '1h' },
    'POST /v1/canvases/:id/reviews': { note: 'Ready for review' },
    'POST /v1/reviews/:review_id/decisions': { decision: 'approve', comment: 'Looks right' },
    'POST /auth/keys': { name: 'another key' },
    'POST /auth/switch': { workspace_id: world.owner.workspaceId },
    'POST /v1/workspaces': { name: 'Another team' },
    'PATCH /v1/workspaces/:workspace_id': { name: 'Renamed' },
    'PATCH /v1/workspaces/:workspace_id/members/:user_id': { role: 'viewer' },
    'POST /v1/workspaces/:workspace_id/invites': { role: 'viewer' },
    'POST /v1/webhooks': { url: hook().url, events: ['canvas.deleted'] },
    'POST /v1/canvases/:id/comments': {
      body: 'Looks *good*',
      anchor: { point: { x: 0.5, y: 0.25 } },
    },
    'POST /v1/canvases/:id/comments/:comment_id/replies': { body: 'Thanks' },
    'POST /share/:token/comments': { body: 'A visitor’s note', name: 'Ada' },
    'POST /share/:token/comments/:comment_id/replies': { body: 'Agreed', name: 'Ada' },
    'POST /c/:id/comments': { body: 'From the page', anchor: { quote: { exact: 'owner' } } },
    'POST /c/:id/comments/:comment_id/replies': { body: 'Replied on the page' },
    'POST /s/:token/comments': { body: 'A reader’s note', name: 'Grace' },
    'POST /s/:token/comments/:comment_id/replies': { body: 'Same here', name: 'Grace' },
    'POST /auth/signup': { email: 'someone@example.com', password: 'a long password' },
    'POST /auth/login': { email: world.owner.email, password: world.owner.password },
  }
  const body = bodies[`${route.method} ${route.path}`]
  if (body !== undefined) init.json = body
  // The owner page's comments script: JSON, with the session's CSRF token in a header.
  if (route.path.startsWith('/c/:id/comments')) {
    init.headers = { Accept: 'application/json', 'X-CSRF-Token': world.csrf }
  }
  // The web app's upload script: JSON, with the session's CSRF token in a header.
  if (route.path.startsWith('/upload/')) {
    const sha256 = route.path.endsWith('presign') ? 'e'.repeat(64) : hash
    init.json = { sha256, ext, size, mime }
    if (route.path.endsWith('finish')) init.json = { sha256, ext, size, mime, name: 'again.txt' }
    init.headers = { Accept: 'application/json', 'X-CSRF-Token': world.csrf }
  }
  if (route.path === '/oauth/register' && route.method === 'POST') {
    init.json = { client_name: 'Another app', redirect_uris: [REDIRECT] }
  }
  if (route.path === '/oauth/token' && route.method === 'POST') {
    init.body = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'not-a-token',
      client_id: world.oauth.clientId,
    }).toString()
    init.headers = { 'Content-Type': 'application/x-www-form-urlencoded' }
  }
  if (route.path === '/oauth/device_authorization' && route.method === 'POST') {
    init.body = new URLSearchParams({ client_id: world.oauth.clientId }).toString()
    init.headers = { 'Content-Type': 'application/x-www-form-urlencoded' }
  }
  if (route.path === '/mcp' && route.method === 'POST') {
    init.json = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    init.headers = { Accept: 'application/json, text/event-stream' }
  }
  if (!route.json && route.method === 'POST') {
    Object.assign(init, formPost({ visibility: 'public', name: 'k' }))
  }
  if (route.method === 'POST' && route.path === '/settings/members/switch') {
    Object.assign(init, formPost({ workspace_id: world.owner.workspaceId }))
  }
  if (route.method === 'POST' && route.path === '/settings/members/:userId/role') {
    Object.assign(init, formPost({ role: 'viewer' }))
  }
  if (route.method === 'POST' && route.path === '/settings/password') {
    // Changed to itself: the world's people keep signing in as they did.
    const password = world.owner.password
    Object.assign(init, formPost({ current: password, password }))
  }
  if (route.method === 'POST' && route.path === '/oauth/device') {
    Object.assign(init, formPost({ user_code: world.userCode, decision: 'approve' }))
  }
  if (route.method === 'POST' && route.path === '/reset/:token') {
    // Set to what it was: the member keeps signing in as they did.
    Object.assign(init, formPost({ password: world.member.password }))
  }
  if (route.method === 'POST' && route.path === '/settings/webhooks') {
    Object.assign(init, formPost({ url: hook().url, events: 'canvas.deleted' }))
  }
  if (route.method === 'PUT') init.body = bytesOf('abc')
  // The page's upload form without JavaScript: the file itself, and the token among the fields.
  if (route.method === 'POST' && route.path === '/upload') {
    const form = new FormData()
    form.set('_csrf', world.csrf)
    form.set('file', new File(['hello from a form'], 'form.txt', { type: 'text/plain' }))
    init.body = form
    init.headers = {}
  }
  return { path, init }
}
