import { Hono } from 'hono'
import { AppError } from '../lib/errors'
import { forPeople } from './people'
import { sameOrigin } from '../http/actor/session'
import type { AppEnv } from '../http/context'
import { auth } from './auth'
import { accessSignIn, sso } from './sso'
import { canvas } from './canvas/canvas'
import { dashboard } from './dashboard'
import { FRAME_PATH, LIVE_PATH } from './frames/links'
import { frames } from './frames/frames'
import { pageHeaders } from './headers'
import { live } from './frames/live'
import { consent } from './oauth'
import { loadSession } from '../http/actor/session'
import { settings } from './settings/settings'
import { share } from './share/share'
import { docs } from './docs/docs'
import { favicon } from './favicon'
import { upload } from './upload'
import { joinForms, joinPages } from './teams/join'
import { resetPages } from './reset'
import { cliPackage } from './cli-package'
import { device } from './device'
import type { OpenApiDocument } from '../http/openapi'

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

// The web app: server-rendered pages that work without JavaScript, one sub-app per area. Forms
// post back to their own pages; every post must come from our own origin, and a signed-in post
// must carry the session's CSRF token.
export function webApp(describe: () => Promise<OpenApiDocument>) {
  const web = new Hono<AppEnv>()

  // Frames are documents of user content, not pages: none of the page middleware applies.
  web.route(FRAME_PATH, frames)
  web.route(LIVE_PATH, live)
  web.route('/', favicon)
  web.route('/', cliPackage)

  web.use('*', pageHeaders, loadSession, accessSignIn, sameOrigin)
  web.route('/', auth)
  web.route('/', sso)
  web.route('/', dashboard)
  web.route('/settings', settings)
  web.route('/oauth', consent)
  web.route('/oauth', device)
  web.route('/c', canvas)
  web.route('/upload', upload)
  web.route('/s', share)
  web.route('/docs', docs(describe))
  web.route('/join', joinPages)
  web.route('/join', joinForms)
  web.route('/reset', resetPages)
  return web
}
