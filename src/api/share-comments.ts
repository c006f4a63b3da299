import { visitorCommentRoutes } from '../http/visitor-comment-routes'
import { shareAccess } from '../http/actor/share'

// A share link's comments in the public API: /share/:token/comments (http/visitor-comment-routes.ts).
// The token, and the password header when the link has one, are the credential.
export const shareComments = visitorCommentRoutes({
  access: async (c, token) => shareAccess(c, token),
  documented: true,
})
