import { Hono } from 'hono'
import { AppError } from '../lib/errors'
import { forPeople } from './people'
import { sameOrigin } from '../http/actor/session'
import { mountAll, type AppEnv, type Mount } from '../http/context'
import { accessSignIn } from './sso-access'
import { pageHeaders } from './headers'
import { loadSession } from '../http/actor/session'

/** The routes of the app's own script (uploads): they answer JSON, errors included. */
export const WEB_JSON_PATHS = ['/upload/presign', '/upload/finalize', '/upload/finish']
// The comments of the owner's page and of a share page, and everything below them.
const WEB_JSON_PATTERN = /^\/(c|s)\/[^/]*\/comments(\/|$)/

/** Whether a path is one of the app's script's routes, which answer JSON, errors included. */
export const isWebJsonPath = (path: string) =>
  WEB_JSON_PATHS.includes(path) || WEB_JSON_PATTERN.test(path)

/** An error of those routes as the script shows it to a person: in a person's words. */
export function forThePage(err: unknown): unknown {
  return err instanceof AppError ? new AppError(err.code, forPeople(err.message), err.headers) : err
}

// The web app: server-rendered pages that work without JavaScript, one sub-app per area (the
// whole app's list is src/app.ts). Forms post back to their own pages; every post must come from
// our own origin, and a signed-in post must carry the session's CSRF token.
export function webApp(documents: readonly Mount[], pages: readonly Mount[]) {
  const web = new Hono<AppEnv>()
  // Documents (frames, files) are not pages: none of the page middleware applies.
  mountAll(web, documents)
  web.use('*', pageHeaders, loadSession, accessSignIn, sameOrigin)
  mountAll(web, pages)
  return web
}
