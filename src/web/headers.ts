import { createMiddleware } from 'hono/factory'
import type { AppEnv } from '../http/context'

const ORIGIN = /^https?:\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/

/** Pages: strict CSP (content frames come from CONTENT_URL or this origin), never framed. */
export const pageHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next()
  // Pages and the redirects of their forms depend on the session: no cache may keep them.
  if (!c.res.headers.get('Cache-Control')) c.header('Cache-Control', 'no-store')
  if (!c.res.headers.get('Content-Type')?.startsWith('text/html')) return
  // Frames come from CONTENT_URL (or here); a PDF frame redirects to R2 itself in S3 mode.
  const settings = c.var.svc.settings
  const storage = settings.s3 ? ` ${new URL(settings.s3.endpoint).origin}` : ''
  const frames = (settings.contentUrl ?? "'self'") + storage
  // Browser uploads PUT to storage: R2's endpoint, or this Worker's storage route at CONTENT_URL.
  const uploads = settings.s3 ? storage : settings.contentUrl ? ` ${settings.contentUrl}` : ''
  // Only a plain origin: a host may hold characters (`;`) that would end the directive.
  const also = c.var.formAction && ORIGIN.test(c.var.formAction) ? ` ${c.var.formAction}` : ''
  c.header(
    'Content-Security-Policy',
    `default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-src ${frames}; ` +
      `connect-src 'self'${uploads}; ` +
      `object-src 'none'; base-uri 'none'; form-action 'self'${also}; frame-ancestors 'none'`,
  )
  c.header('X-Frame-Options', 'DENY')
  c.header('Referrer-Policy', 'same-origin')
})
