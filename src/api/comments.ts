import { keyAccess } from '../http/access'
import { commentRoutes } from '../http/comment-routes'

// Comments of one canvas: /v1/canvases/:id/comments (docs/comments-and-webhooks.md), for API keys
// (apps comment through MCP's tools). Reading needs the `read` scope, every change `write`; what a
// key writes is signed with the key's name.
export const comments = commentRoutes({
  read: keyAccess,
  write: keyAccess,
  moderate: keyAccess,
  who: (c) => {
    const auth = c.var.auth
    const author = { name: auth.keyName, kind: 'member' as const, userId: auth.userId, by: auth.by }
    return { actor: auth, author }
  },
  documented: true,
})
