import { defineCommand } from 'citty'
import { commentStatus, positiveInt } from '../flags'
import { MAX_WAIT_SECONDS } from '../../src/lib/live-events'
import { Formatted, note, visible } from '../output'
import type { Api } from '../client'
import { usageError } from '../errors'
import { begin, bold, dim, globalArgs, print, printJson } from '../shared'
import type { Canvas, Comment, CommentAnchor, Reply } from '../types'
import { ago } from '../when'

export default defineCommand({
  meta: { name: 'comments', description: 'List the comments on a canvas, with their replies' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    status: { type: 'string', description: 'Which comments: open (default), resolved or all' },
    version: { type: 'string', description: 'Only those made on this version' },
    wait: {
      type: 'boolean',
      description: 'Wait until someone comments or replies, then show the threads with news',
    },
    timeout: {
      type: 'string',
      description: 'With --wait: seconds to wait at most (default 30, ≤ 60)',
    },
    since: {
      type: 'string',
      description: 'With --wait: news after this time (a `since` a wait printed); default now',
    },
  },
  async run({ args }) {
    const { api } = begin('comments', args)
    const status = commentStatus(args.status)
    const version = positiveInt(args.version, 'version')
    const id = encodeURIComponent(args.id)
    if (args.wait) return waitForNews(api, args)
    if (args.timeout !== undefined || args.since !== undefined) {
      throw usageError('--timeout and --since go with --wait')
    }
    const { comments } = await api.request<{ comments: Comment[] }>(`/v1/canvases/${id}/comments`, {
      query: { status, version },
    })
    if (args.json) return printJson({ comments })
    if (comments.length === 0) {
      return print(dim(status === 'all' ? 'no comments' : `no ${status ?? 'open'} comments`))
    }
    // A comment made on an earlier version says so: what it points at may have changed since.
    const latest = (await api.request<Canvas>(`/v1/canvases/${id}`)).version
    print(new Formatted(comments.map((c) => block(c, latest)).join('\n\n')))
  },
})

type Args = { id: string; json?: boolean; timeout?: string; since?: string }

/** `--wait`: the threads with a comment or reply newer than `--since`, as soon as there are any. */
async function waitForNews(api: Api, args: Args) {
  const timeout = positiveInt(args.timeout, 'timeout', MAX_WAIT_SECONDS)
  const news = await api.request<{ comments: Comment[]; since: string }>(
    `/v1/canvases/${encodeURIComponent(args.id)}/comments/wait`,
    { query: { since: args.since, timeout_s: timeout } },
  )
  if (args.json) return printJson(news)
  if (news.comments.length === 0) {
    print(dim(`nothing new in ${timeout ?? 30} s`))
  } else {
    const latest = (await api.request<Canvas>(`/v1/canvases/${encodeURIComponent(args.id)}`))
      .version
    print(new Formatted(news.comments.map((c) => block(c, latest)).join('\n\n')))
  }
  // What to pass to the next wait, on stderr beside the listing.
  note(`to wait for what comes next: --since ${news.since}`)
}

/** One comment as a person reads it: who, when, on what, what they said, and the replies. */
function block(comment: Comment, latest: number): string {
  const about = [
    comment.status === 'resolved' && comment.resolved_at
      ? `resolved ${ago(comment.resolved_at)}`
      : comment.status,
    by(comment),
    ago(comment.created_at),
    comment.version < latest ? `on version ${comment.version} (now ${latest})` : null,
  ].filter((part) => part !== null)
  const lines = [`${bold(comment.comment_id).text}  ${visible(about.join(' · '))}`]
  const anchor = pointedAt(comment.anchor)
  if (anchor) lines.push(`  ${visible(anchor)}`)
  lines.push(...indented(comment.body, '  '))
  for (const reply of comment.replies) lines.push(...replyLines(reply))
  return lines.join('\n')
}

function replyLines(reply: Reply): string[] {
  return [
    `    ${visible(`${by(reply)} · ${ago(reply.created_at)}`)}`,
    ...indented(reply.body, '      '),
  ]
}

const by = (said: Comment | Reply) => `${said.author.name} (${said.author.kind})`

/** A quote shortened to a line, or where a point is; nothing for the canvas as a whole. */
function pointedAt(anchor: CommentAnchor | null): string | null {
  if (!anchor) return null
  if ('quote' in anchor) return `> ${short(anchor.quote.exact)}`
  const percent = (n: number) => `${Math.round(n * 100)}%`
  return `at ${percent(anchor.point.x)} across, ${percent(anchor.point.y)} down`
}

const QUOTE_CHARS = 80

function short(text: string): string {
  const chars = [...text.replace(/\s+/g, ' ').trim()]
  return chars.length > QUOTE_CHARS
    ? chars.slice(0, QUOTE_CHARS - 1).join('') + '…'
    : chars.join('')
}

/** A body's own lines, each made visible and indented; a server's line breaks are kept as lines. */
const indented = (body: string, indent: string) =>
  body.split(/\r?\n/).map((line) => (line ? indent + visible(line) : ''))
