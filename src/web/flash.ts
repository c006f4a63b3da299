import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import * as z from 'zod/mini'
import { isHttps } from '../http/actor/session'
import type { SignedInEnv } from '../http/context'
import type { Services } from '../domain/services'
import type { SessionInfo } from '../domain/users'
import { constantTimeEqual } from '../lib/crypto'
import { sessionMac } from './session'

// What an action did, carried across its redirect (post, redirect, get): the form post sets it,
// the next page that shows messages takes it and clears it, so a reload repeats neither the action
// nor the message. A cookie rather than the URL, because a new API key must not sit in a URL (the
// history, a Referer) and a message in the URL would come back with every visit to it.

const FLASH_COOKIE = 'canvas_flash'

// Read back from a cookie the browser could have been handed by anyone: checked like any input.
const flashShape = z.object({
  tone: z.enum(['ok', 'error']),
  text: z.string().check(z.maxLength(400)),
  /**
   * The id of what the action was about (`share`, `canvas-<id>`): the page shows the message
   * there, where the redirect's fragment has brought the eye, rather than at its top.
   */
  at: z.optional(z.string().check(z.regex(/^[a-z]+(-[A-Za-z0-9]{1,64})?$/))),
  copy: z.optional(
    z
      .array(
        z.object({
          label: z.string().check(z.maxLength(40)),
          value: z.string().check(z.maxLength(1000)),
        }),
      )
      .check(z.maxLength(3)),
  ),
})

export type Flash = z.infer<typeof flashShape>

/**
 * Signed for the session it was set in (an HMAC under CSRF_SECRET): a cookie planted by anyone else,
 * or left over from another session in the same browser, is not shown.
 */
function signature(signer: Signer, text: string) {
  return sessionMac(signer, 'flash', text)
}

type Signer = { svc: Services; session: SessionInfo }

export async function setFlash<E extends SignedInEnv>(c: Context<E>, flash: Flash) {
  const text = JSON.stringify(flash)
  setCookie(c, FLASH_COOKIE, `${await signature(c.var, text)}.${text}`, {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    // Long enough for the redirect, short enough that a message never turns up much later.
    maxAge: 60,
  })
}

/**
 * The message waiting for this page, if any; it is shown once. A session that has just lost its
 * workspace (its person removed, or gone in another tab) is told first, where it landed.
 */
export async function takeFlash(c: Context, signer: Signer): Promise<Flash | undefined> {
  const left = (signer.session as { leftFrom?: string }).leftFrom
  if (left !== undefined) {
    const text =
      `You are no longer a member of ${quoted(left)}: an admin removed you, or you left it. ` +
      'You are in your personal workspace; an invite from its admins brings you back.'
    return { tone: 'error', text }
  }
  const raw = getCookie(c, FLASH_COOKIE)
  if (raw === undefined) return undefined
  clearFlash(c)
  const dot = raw.indexOf('.')
  const text = raw.slice(dot + 1)
  if (dot < 0 || !constantTimeEqual(raw.slice(0, dot), await signature(signer, text)))
    return undefined
  try {
    const parsed = flashShape.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** Logging out drops a message not yet shown (a new key among them). */
export function clearFlash(c: Context) {
  deleteCookie(c, FLASH_COOKIE, { path: '/', secure: isHttps(c) })
}

/** A title as a message quotes it: whole when short, else cut with an ellipsis. */
export function quoted(title: string) {
  // By code points, so a cut never splits an emoji.
  const chars = [...title]
  return `“${chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : title}”`
}
