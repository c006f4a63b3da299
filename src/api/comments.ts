import { key } from '../http/actor/steps'
import { MEMBER, READ, WRITE } from '../http/actor/need'
import { commentRoutes } from '../http/comment-routes'

// Comments of one canvas: /v1/canvases/:id/comments (docs/comments-and-webhooks.md), for API keys
// (apps comment through MCP's tools). Reading needs the `read` scope, every change `write`;
// resolving, reopening and deleting an editor's role. What a key writes is signed with its name.
export const comments = commentRoutes({
  read: key(READ),
  write: key(MEMBER),
  moderate: key(WRITE),
  documented: true,
})
