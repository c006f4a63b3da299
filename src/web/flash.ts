import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import * as z from 'zod/mini'
import { isHttps } from '../http/auth'

// What an action did, carried across its redirect (post, redirect, get): the form post sets it,
// the next page that shows messages takes it and clears it, so a reload repeats neither the action
// nor the message. A cookie rather than the URL, because a new API key must not sit in a URL (the
// history, a Referer) and a message in the URL would come back with every visit to it.

const FLASH_COOKIE = 'canvas_flash'

// Read back from a cookie the browser could have been handed by anyone: checked like any input.
const flashShape = z.object({
  tone: z.enum(['ok', 'error']),
  text: z.string().check(z.maxLength(400)),
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

export function setFlash(c: Context, flash: Flash) {
  setCookie(c, FLASH_COOKIE, JSON.stringify(flash), {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    // Long enough for the redirect, short enough that a message never turns up much later.
    maxAge: 60,
  })
}

/** The message waiting for this page, if any; it is shown once. */
export function takeFlash(c: Context): Flash | undefined {
  const raw = getCookie(c, FLASH_COOKIE)
  if (raw === undefined) return undefined
  deleteCookie(c, FLASH_COOKIE, { path: '/', secure: isHttps(c) })
  try {
    const parsed = flashShape.safeParse(JSON.parse(raw))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** A title as a message quotes it: whole when short, else cut with an ellipsis. */
export function quoted(title: string) {
  return `“${title.length > 60 ? `${title.slice(0, 59)}…` : title}”`
}
