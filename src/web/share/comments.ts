import { visitorCommentRoutes } from '../../http/visitor-comment-routes'
import { shareAccess } from '../../http/actor/share'
import { hasView } from './view-ticket'

// A share page's comments, for its script: the public /share/:token/comments routes
// (http/visitor-comment-routes.ts), except that a link's password given on the page a while ago
// (its view cookie, scoped to the link's path) stands for the password, so the page never asks
// for it twice. Same checks, same limits.
export const shareComments = visitorCommentRoutes({
  access: async (c, token) => ({
    ...shareAccess(c, token),
    passwordGiven: await hasView(c, token),
  }),
  documented: false,
})
