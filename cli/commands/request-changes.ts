import { defineCommand } from 'citty'
import { decide } from '../decide'
import { usageError } from '../errors'
import { globalArgs } from '../shared'

export default defineCommand({
  meta: { name: 'request-changes', description: 'Ask for changes on a review, saying which' },
  args: {
    ...globalArgs,
    review_id: { type: 'positional', required: true, description: 'Review id' },
    comment: { type: 'string', description: 'What to change (required)' },
  },
  run: ({ args }) => {
    if (typeof args.comment !== 'string' || args.comment.trim() === '') {
      throw usageError('--comment says what to change')
    }
    return decide('request-changes', 'request_changes', args)
  },
})
