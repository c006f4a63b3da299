import { account } from './api/account'
import { mcp } from './api/mcp'
import { oauthApi } from './api/oauth'
import { oauthCli } from './api/oauth-cli'
import { auth } from './api/auth'
import { storage } from './api/storage'
import { webhooks } from './api/webhooks'
import { canvasReviews, reviewsApi } from './api/reviews'
import { views, workspaceViews } from './api/views'
import { workspacesApi } from './api/workspaces'
import { audit } from './api/audit'
import { search } from './api/search'
import { reference } from './api/reference'
import { LOCAL_STORAGE_PATH } from './storage/presign'
import { HOT_API, HOT_DOCUMENTS, HOT_PAGES } from './hot'
import { composeApp } from './shell'
import { auth as authPages } from './web/auth'
import { sso } from './web/sso'
import { dashboard } from './web/dashboard'
import { settings } from './web/settings/settings'
import { consent } from './web/oauth'
import { device } from './web/device'
import { upload as uploadPages } from './web/upload'
import { docs } from './web/docs/docs'
import { joinForms, joinPages } from './web/teams/join'
import { resetPages } from './web/reset'
import { cliPackage } from './web/cli-package'
import { readersPage } from './web/canvas/readers'

export { answersJson } from './shell'

/**
 * The whole app: every route, the start's hot ones (src/hot.ts) first. The Worker loads it on the
 * first request the hot routes do not serve; the route table (OpenAPI, the tests) is read off it.
 */
export function buildApp() {
  return composeApp((describe) => ({
    api: [
      ...HOT_API,
      ['/auth', auth],
      [LOCAL_STORAGE_PATH, storage],
      ['/v1/canvases/:id/reviews', canvasReviews],
      ['/v1/canvases/:id/views', views],
      ['/v1/workspaces/:workspace_id/views', workspaceViews],
      ['/v1/reviews', reviewsApi],
      ['/v1/webhooks', webhooks],
      ['/v1/workspaces', workspacesApi],
      ['/v1/audit', audit],
      ['/v1/search', search],
      ['/v1', account],
      ['/mcp', mcp],
      ['/', oauthApi],
      ['/', oauthCli],
    ],
    reference: [['/', reference(describe)]],
    documents: [...HOT_DOCUMENTS, ['/', cliPackage]],
    pages: [
      ...HOT_PAGES,
      ['/', authPages],
      ['/', sso],
      ['/', dashboard],
      ['/c', readersPage],
      ['/settings', settings],
      ['/oauth', consent],
      ['/oauth', device],
      ['/upload', uploadPages],
      ['/docs', docs(describe)],
      ['/join', joinPages],
      ['/join', joinForms],
      ['/reset', resetPages],
    ],
  }))
}
