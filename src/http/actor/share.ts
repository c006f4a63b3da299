import type { ShareAccess } from '../../domain/shares/public'
import type { AppContext } from '../context'
import { clientNetworkOf, limit } from '../limits'

/**
 * What a public share route presents of a link: its token and the password the request sent,
 * whose checks are rate-limited per link and client address.
 */
export function shareAccess(c: AppContext, token: string): ShareAccess {
  return {
    token,
    password: c.req.header('X-Share-Password'),
    beforePasswordCheck: () =>
      limit(c.env.SHARE_PASSWORD_LIMITER, `share:${token}:${clientNetworkOf(c)}`),
  }
}

/** The header a public share route documents for the link's password. */
export const PASSWORD = {
  name: 'X-Share-Password',
  description: 'The link’s password, when it has one.',
}

/** What a public share route answers when the link cannot be used. */
export const UNUSABLE = [
  'share_not_found',
  'share_expired',
  'share_exhausted',
  'share_password_required',
  'share_password_invalid',
  'rate_limited',
] as const
