import { defineCommand } from 'citty'
import { orNoComment } from '../comments'
import { commentId } from '../flags'
import { begin, globalArgs, print, printJson } from '../shared'
import type { Comment } from '../types'

export default defineCommand({
  meta: { name: 'resolve', description: 'Mark a comment resolved, or open again' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    comment_id: { type: 'positional', required: true, description: 'Comment id' },
    reopen: { type: 'boolean', description: 'Open it again instead' },
  },
  async run({ args }) {
    const { api } = begin('resolve', args)
    const id = commentId(args.comment_id, 'comment_id')!
    const action = args.reopen ? 'reopen' : 'resolve'
    const path = `/v1/canvases/${encodeURIComponent(args.id)}/comments/${id}/${action}`
    const comment = await orNoComment(args.id, id, api.request<Comment>(path, { method: 'POST' }))
    if (args.json) return printJson(comment)
    print(`comment ${comment.comment_id} is ${comment.status}`)
  },
})
