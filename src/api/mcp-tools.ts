import { AppError } from '../lib/errors'
import { MEMBER, READ, WRITE } from '../http/actor/need'
import { listenAs, requireStillActing } from '../http/actor/listen'
import { makePermanent, deleteCanvas, updateCanvas } from '../domain/canvases/canvases'
import {
  canvasByIdStatement,
  listCanvases,
  listVersions,
  ownedCanvasDetail,
} from '../domain/canvases/reads'
import {
  createComment,
  listComments,
  replyToComment,
  setCommentStatus,
  type CommentPlace,
} from '../domain/comments/comments'
import { waitForComments } from '../domain/comments/wait'
import { signedDownload } from '../domain/downloads'
import { editCanvas } from '../domain/canvases/edit'
import { publish, publishSite, readContent } from '../domain/canvases/publish'
import {
  createShare,
  endsWithCanvas,
  listShares,
  revokeShare,
  revokeShares,
} from '../domain/shares/shares'
import { workspaceUsage } from '../domain/usage'
import { listWorkspaces } from '../domain/workspaces/workspaces'
import { RENDERERS } from '../render/registry'
import type { Share } from '../schema/responses'
import { tool, withUrl, type ToolContext } from './mcp-tool'
import { SEARCH_TOOLS } from './mcp-search-tools'
import { REVIEW_TOOLS } from './mcp-review-tools'
import { VIEWS_TOOLS } from './mcp-views-tool'
import * as output from '../schema/tool-outputs'
import * as input from '../schema/tools'

// The MCP tools: each validates its arguments with the API's rules and calls the same domain
// function as the matching API route, and answers the shape its `output` declares. A tool that
// changes something needs the `write` scope. Finding canvases: mcp-search-tools.ts.

const shareWithUrl = (ctx: ToolContext, share: Share) => ({
  ...share,
  url: `${ctx.origin}/s/${share.token}`,
})

const place = (ctx: ToolContext, canvasId: string): CommentPlace => ({
  workspaceId: ctx.actor.workspaceId,
  canvasId,
})
// What a tool writes is signed by the app (an OAuth client's name) or the key it was given.
const agent = (ctx: ToolContext) => ({
  name: ctx.actor.by.name,
  kind: 'agent' as const,
  userId: ctx.actor.userId,
  by: ctx.actor.by,
})

type Content = { content?: string; content_base64?: string }

function decode(ctx: ToolContext, args: Content, field = 'content_base64'): Uint8Array {
  if (args.content !== undefined) return new TextEncoder().encode(args.content)
  const encoded = args.content_base64!
  // Refused before decoding: publish refuses the decoded bytes past the limit anyway.
  const limit = ctx.svc.settings.maxDirectUploadBytes
  if (encoded.length > Math.ceil(limit / 3) * 4) {
    throw new AppError('payload_too_large', `${field}: over the limit of ${limit} bytes`)
  }
  let binary: string
  try {
    binary = atob(encoded)
  } catch {
    throw new AppError('invalid_request', `${field}: is not valid base64`)
  }
  // Into an array of its final size: Uint8Array.from over the string would first make a list of
  // ten million numbers for a 10 MiB file, past a Worker's memory.
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

export const TOOLS = [
  tool({
    name: 'publish',
    title: 'Publish a file or a site',
    description:
      'Publish a file as a web page and get its URL: HTML; Markdown (```mermaid fences drawn, ' +
      '$…$ and $$…$$ math typeset); Mermaid diagrams (.mmd); Jupyter notebooks (.ipynb, shown ' +
      'with their outputs, never run); Vega or Vega-Lite charts (a .json naming its $schema); ' +
      'CSV, JSON, SVG, images, PDF, audio, video or code; or, with `files`, several files as one ' +
      'site whose relative links work (a report ' +
      'with its CSS, scripts, images and data). With canvas_id, publishes a new version of that ' +
      'canvas (same URL; earlier versions are kept). Answers the canvas with `view_url`, the page to ' +
      'give a person.',
    input: input.publishInput,
    output: output.canvasResult,
    need: WRITE,
    effect: { destructive: false, idempotent: false },
    shows: 'canvas',
    run: async (ctx, args) => {
      const options = {
        title: args.title,
        canvasId: args.canvas_id,
        permanent: args.permanent,
        visibility: args.visibility,
      }
      if (args.files) {
        const files = args.files.map((f, i) => ({
          path: f.path,
          bytes: decode(ctx, f, `files.${i}.content_base64`),
        }))
        return withUrl(
          ctx,
          await publishSite(ctx.svc, ctx.actor, { ...options, files, main: args.main }),
        )
      }
      const bytes = decode(ctx, args)
      return withUrl(
        ctx,
        await publish(ctx.svc, ctx.actor, { ...options, bytes, filename: args.filename! }),
      )
    },
  }),
  tool({
    name: 'list_canvases',
    title: 'List canvases',
    description:
      'List the workspace’s canvases, newest first, with their URLs; pass a page’s next_cursor ' +
      'back as cursor for the next page.',
    input: input.listCanvasesInput,
    output: output.canvasListResult,
    need: READ,
    run: async (ctx, { limit = 20, offset = 0, ...filters }) => {
      // With `cursor`, the page after the one that gave it (as GET /v1/canvases?cursor=).
      const page = await listCanvases(ctx.svc, ctx.actor, { ...filters, limit, offset })
      return { ...page, canvases: page.canvases.map((c) => withUrl(ctx, c)) }
    },
  }),
  tool({
    name: 'get_canvas',
    title: 'Get a canvas',
    description:
      'A canvas’s details: title, version, size, expiry, file and renderer, and URL; of a site, ' +
      'also its files (`items`, by path) and `main`.',
    input: input.canvasInput,
    output: output.canvasDetailResult,
    need: READ,
    shows: 'canvas',
    run: async (ctx, { canvas_id }) => {
      const rows = await canvasByIdStatement(ctx.svc, canvas_id).all()
      return withUrl(ctx, ownedCanvasDetail(rows, ctx.actor))
    },
  }),
  tool({
    name: 'read_canvas',
    title: 'Read a canvas’s content',
    description:
      'Read a canvas’s content back: the text of its latest version, or of `version`; of a site, ' +
      'its main file or the file at `path` (get_canvas lists them). Binary or very large ' +
      'content is not returned; the answer says so and gives a download URL instead.',
    input: input.readCanvasInput,
    output: output.readResult,
    need: READ,
    run: async (ctx, { canvas_id, version, path }) => {
      const read = await readContent(ctx.svc, ctx.actor, canvas_id, version, path)
      const about = { canvas_id, version: read.content.version, ext: read.content.ext, path }
      if (read.kind === 'text') return { ...about, text: read.text }
      return {
        ...about,
        text: null,
        reason:
          read.kind === 'binary'
            ? ('binary content' as const)
            : ('too large to return as text' as const),
        size: read.size,
        download_url: await signedDownload(ctx.svc, ctx.storage(), read.content, true),
      }
    },
  }),
  tool({
    name: 'list_versions',
    title: 'List a canvas’s versions',
    description: 'Every version of a canvas, newest first.',
    input: input.canvasInput,
    output: output.versionList,
    need: READ,
    run: async (ctx, { canvas_id }) => listVersions(ctx.svc, ctx.actor, canvas_id),
  }),
  tool({
    name: 'update_canvas',
    title: 'Update a canvas',
    description:
      'Change a canvas’s title, visibility (private or public) or renderer. New content: publish.',
    input: input.updateCanvasInput,
    output: output.canvasResult,
    need: WRITE,
    effect: { destructive: false, idempotent: false },
    shows: 'canvas',
    run: async (ctx, { canvas_id, ...changes }) =>
      withUrl(ctx, await updateCanvas(ctx.svc, ctx.actor, canvas_id, changes)),
  }),
  tool({
    name: 'edit_canvas',
    title: 'Edit a canvas’s text',
    description:
      'Change part of a text canvas without sending all of it: each edit replaces `old`, text ' +
      'that must occur exactly once, with `new`, in order, each in the result of the one before. ' +
      'Together they make one new version, answered like publish. If any `old` is missing or ' +
      'occurs more than once, nothing changes. Of a site, `path` names the file (default: its ' +
      'main file). Binary content cannot be edited: publish it instead.',
    input: input.editCanvasInput,
    output: output.canvasResult,
    need: WRITE,
    effect: { destructive: false, idempotent: false },
    shows: 'canvas',
    run: async (ctx, { canvas_id, edits, path }) =>
      withUrl(ctx, await editCanvas(ctx.svc, ctx.actor, canvas_id, { edits, path })),
  }),
  tool({
    name: 'delete_canvas',
    title: 'Delete a canvas',
    description: 'Delete a canvas with its versions and share links. It cannot be undone.',
    input: input.changeCanvasInput,
    output: output.success,
    need: WRITE,
    effect: { destructive: true, idempotent: true },
    run: async (ctx, { canvas_id }) => {
      await deleteCanvas(ctx.svc, ctx.actor, canvas_id)
      return { success: true as const }
    },
  }),
  tool({
    name: 'make_permanent',
    title: 'Make a canvas permanent',
    description: 'Keep a canvas: it no longer expires.',
    input: input.changeCanvasInput,
    output: output.canvasResult,
    need: WRITE,
    effect: { destructive: false, idempotent: true },
    run: async (ctx, { canvas_id }) =>
      withUrl(ctx, await makePermanent(ctx.svc, ctx.actor, canvas_id)),
  }),
  tool({
    name: 'share_canvas',
    title: 'Create a share link',
    description:
      'Make a link anyone can open without an account: optionally expiring, limited to a number ' +
      'of views, password-protected, pinned to one version, or open to comments from its ' +
      'readers. Answers the link with its `url`, and a `note` when the canvas is temporary and ' +
      'ends the link sooner than asked.',
    input: input.shareCanvasInput,
    output: output.newShareResult,
    need: WRITE,
    effect: { destructive: false, idempotent: false },
    run: async (ctx, { canvas_id, ...options }) => {
      const share = await createShare(ctx.svc, ctx.actor, canvas_id, options)
      const ends = endsWithCanvas(share, options.expires_in)
      return { ...shareWithUrl(ctx, share), ...(ends && { note: `Tell the person: ${ends}.` }) }
    },
  }),
  tool({
    name: 'list_shares',
    title: 'List share links',
    description: 'A canvas’s share links, with views, expiry and whether each has a password.',
    input: input.canvasInput,
    output: output.shareListResult,
    need: READ,
    run: async (ctx, { canvas_id }) => {
      const shares = await listShares(ctx.svc, ctx.actor, canvas_id)
      return { shares: shares.map((s) => shareWithUrl(ctx, s)) }
    },
  }),
  tool({
    name: 'revoke_shares',
    title: 'Revoke share links',
    description: 'Revoke one share link (`token`), or every link of the canvas.',
    input: input.revokeSharesInput,
    output: output.revoked,
    need: WRITE,
    effect: { destructive: true, idempotent: true },
    run: async (ctx, { canvas_id, token }) => {
      if (token === undefined) {
        return {
          success: true as const,
          revoked: await revokeShares(ctx.svc, ctx.actor, canvas_id),
        }
      }
      await revokeShare(ctx.svc, ctx.actor, canvas_id, token)
      return { success: true as const, revoked: 1 }
    },
  }),
  tool({
    name: 'list_comments',
    title: 'List comments',
    description:
      'What people said about a canvas: its open comments (or `status` resolved or all), oldest ' +
      'first, each with its replies, its author, the `version` it was made on and what it points ' +
      'at (`anchor`: a `quote` of the text, a `point` of the content, or null for the whole ' +
      'canvas). To act on them: publish a new version (publish with canvas_id, or edit_canvas), ' +
      'then reply_comment to say what changed, and resolve_comment.',
    input: input.listCommentsInput,
    output: output.commentList,
    need: READ,
    run: async (ctx, { canvas_id, ...query }) => ({
      comments: await listComments(ctx.svc, place(ctx, canvas_id), query),
    }),
  }),
  tool({
    name: 'wait_for_comments',
    title: 'Wait for comments',
    description:
      'Waits until someone comments on the canvas or replies (after `since`, default now), and ' +
      'answers at once with the threads that have something new; or with none at `timeout_s` ' +
      '(default 30, at most 60). Call it again with the answer’s `since` to keep waiting: for ' +
      'an agent that asked a person for review.',
    input: input.waitForCommentsInput,
    output: output.commentNews,
    need: READ,
    run: async (ctx, { canvas_id, since, timeout_s: seconds }) => {
      const from = since === undefined ? ctx.svc.now() : Date.parse(since)
      const wait = (seconds ?? 30) * 1000
      const where = place(ctx, canvas_id)
      const tags = await listenAs(ctx.primary, ctx.actor, where)
      const news = await waitForComments(ctx.primary, where, from, wait, tags)
      await requireStillActing(ctx.primary, ctx.actor)
      return news
    },
  }),
  tool({
    name: 'add_comment',
    title: 'Comment on a canvas',
    description:
      'Comment on a canvas: on the whole of it, or on a quote of its text or a point of it, for ' +
      'the people reviewing it to read. To answer a comment, use reply_comment.',
    input: input.addCommentInput,
    output: output.comment,
    need: MEMBER,
    effect: { destructive: false, idempotent: false },
    run: async (ctx, { canvas_id, ...comment }) =>
      createComment(ctx.svc, place(ctx, canvas_id), agent(ctx), comment),
  }),
  tool({
    name: 'reply_comment',
    title: 'Reply to a comment',
    description:
      'Reply to a comment from list_comments: say what the new version changed, or ask what ' +
      'you need to know. Replies are one level deep. Then resolve_comment once it is dealt with.',
    input: input.replyCommentInput,
    output: output.reply,
    need: MEMBER,
    effect: { destructive: false, idempotent: false },
    run: async (ctx, { canvas_id, comment_id, body }) =>
      replyToComment(ctx.svc, place(ctx, canvas_id), agent(ctx), comment_id, body),
  }),
  tool({
    name: 'resolve_comment',
    title: 'Resolve a comment',
    description:
      'Mark a comment resolved once it is dealt with (usually after publishing a new version and ' +
      'replying): it leaves the open comments. Resolving one already resolved changes nothing.',
    input: input.commentActionInput,
    output: output.comment,
    need: WRITE,
    effect: { destructive: false, idempotent: true },
    run: async (ctx, { canvas_id, comment_id }) =>
      setCommentStatus(ctx.svc, place(ctx, canvas_id), comment_id, 'resolved', ctx.actor.by),
  }),
  tool({
    name: 'usage',
    title: 'Show usage',
    description:
      'What the workspace holds and its limits (largest file, how long temporary canvases ' +
      'live), and the renderers with the file extensions each shows.',
    input: input.noInput,
    output: output.usageResult,
    need: READ,
    run: async (ctx) => ({
      ...(await workspaceUsage(ctx.svc, ctx.actor)),
      renderers: RENDERERS,
    }),
  }),
  tool({
    name: 'list_workspaces',
    title: 'List workspaces',
    description:
      'The workspaces of the person who connected this app, with their role in each; `current` ' +
      'marks the one every other tool acts in (the one chosen when the app or key was made).',
    input: input.noInput,
    output: output.workspacesResult,
    need: READ,
    run: async (ctx) => ({
      workspaces: (await listWorkspaces(ctx.svc, ctx.actor.userId)).map((w) => ({
        ...w,
        current: w.workspace_id === ctx.actor.workspaceId,
      })),
    }),
  }),
  ...SEARCH_TOOLS,
  ...REVIEW_TOOLS,
  ...VIEWS_TOOLS,
]
