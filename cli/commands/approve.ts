import { defineCommand } from 'citty'
import { decide } from '../decide'
import { globalArgs } from '../shared'

export default defineCommand({
  meta: { name: 'approve', description: 'Approve a review: readers of approved links see it' },
  args: {
    ...globalArgs,
    review_id: { type: 'positional', required: true, description: 'Review id' },
    comment: { type: 'string', description: 'A comment on the reviewed version' },
  },
  run: ({ args }) => decide('approve', 'approve', args),
})
