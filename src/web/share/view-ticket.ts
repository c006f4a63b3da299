import type { Context } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import { isHttps } from '../../http/actor/session'
import type { AppEnv } from '../../http/context'
import { constantTimeEqual, hmacHex } from '../../lib/crypto'
import { secretFor } from '../../lib/settings'
import { FRAME_TTL_SECONDS, LIMITED_FRAME_SECONDS } from '../frames/links'

// A share page opened by a person (the Open button, or the password form) is answered with a
// redirect and this cookie, so that the page it lands on, and a reload of it, show the content
// without counting another view or asking for the password again. It lives as long as the frames
// of that view: a minute for a link with a view limit (SECURITY.md), an hour otherwise. Scoped to
// the link's own path and signed with its token, it opens nothing else.

const COOKIE = 'canvas_view'

const message = (token: string, exp: number) => `view:${token}:${exp}`

export async function grantView(c: Context<AppEnv>, token: string, limited: boolean) {
  const ttl = limited ? LIMITED_FRAME_SECONDS : FRAME_TTL_SECONDS
  const exp = Math.floor(c.var.svc.now() / 1000) + ttl
  const secret = secretFor('FRAME_SIGNING_SECRET', c.var.svc.settings.frameSigningSecret)
  setCookie(c, COOKIE, `${exp}.${await hmacHex(secret, message(token, exp))}`, {
    path: `/s/${token}`,
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    maxAge: ttl,
  })
}

/** Whether this request carries a view of this link that has not run out. */
export async function hasView(c: Context<AppEnv>, token: string): Promise<boolean> {
  const [exp, sig] = (getCookie(c, COOKIE) ?? '').split('.')
  const secret = c.var.svc.settings.frameSigningSecret
  if (!secret || !/^\d{1,12}$/.test(exp ?? '') || Number(exp) * 1000 <= c.var.svc.now()) {
    return false
  }
  return constantTimeEqual(await hmacHex(secret, message(token, Number(exp))), sig ?? '')
}
