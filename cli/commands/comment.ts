import { defineCommand } from 'citty'
import { orNoComment } from '../comments'
import { commentId, commentText, MAX_QUOTE_LENGTH, positiveInt } from '../flags'
import { usageError } from '../errors'
import { begin, globalArgs, print, printJson } from '../shared'
import type { Comment, CommentAnchor, Reply } from '../types'

export default defineCommand({
  meta: { name: 'comment', description: 'Comment on a canvas, or reply to a comment' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    text: {
      type: 'positional',
      required: true,
      description: 'What to say (Markdown); words after the id are joined with spaces',
    },
    quote: { type: 'string', description: 'Point at this text of the canvas (quoted exactly)' },
    version: { type: 'string', description: 'The version it is about (default: the latest)' },
    reply: { type: 'string', description: 'Reply to this comment instead (its id)' },
  },
  async run({ args }) {
    const { api } = begin('comment', args)
    // An unquoted sentence arrives as several words: all of them are the comment.
    const body = commentText(args._.slice(1).join(' '), 'the comment')!
    const quote = commentText(args.quote, '--quote', MAX_QUOTE_LENGTH)
    const version = positiveInt(args.version, 'version')
    const replyTo = commentId(args.reply, '--reply')
    const path = `/v1/canvases/${encodeURIComponent(args.id)}/comments`
    if (replyTo !== undefined) {
      if (quote !== undefined || version !== undefined) {
        throw usageError('--reply goes without --quote and --version: a reply is to the comment')
      }
      const reply = await orNoComment(
        args.id,
        replyTo,
        api.request<Reply>(`${path}/${replyTo}/replies`, { method: 'POST', json: { body } }),
      )
      if (args.json) return printJson(reply)
      print(reply.reply_id)
      return print(`replied to comment ${replyTo} of ${args.id}`)
    }
    const anchor: CommentAnchor | undefined =
      quote === undefined ? undefined : { quote: { exact: quote } }
    const comment = await api.request<Comment>(path, {
      method: 'POST',
      json: { body, anchor, version },
    })
    if (args.json) return printJson(comment)
    print(comment.comment_id)
    print(`open comment on version ${comment.version} of ${comment.canvas_id}`)
  },
})
