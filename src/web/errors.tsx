import { viewerOf } from './session'
import type { Context } from 'hono'
import { requestId, type AppEnv } from '../http/context'
import type { AppError } from '../lib/errors'
import { ErrorPage, type Back } from './pages/error'
import { forPeople } from './people'

const TITLES: Partial<Record<string, string>> = {
  canvas_not_found: 'Canvas not found',
  share_not_found: 'Link not found',
  share_expired: 'This link has expired',
  share_exhausted: 'This link has been used up',
  not_approved: 'Awaiting review',
  not_found: 'Page not found',
  forbidden: 'Not allowed',
  rate_limited: 'Too many attempts',
  payload_too_large: 'File too large',
  invalid_request: 'That did not work',
  version_not_found: 'Version not found',
}

const MESSAGES: Partial<Record<string, string>> = {
  canvas_not_found: 'It does not exist, has expired, or is not shared with you.',
  share_not_found: 'This share link does not exist or was revoked.',
  share_expired: 'Ask the owner for a new link.',
  share_exhausted: 'It has reached its view limit. Ask the owner for a new link.',
  not_approved:
    'This link shows what its authors have approved, and nothing is yet. Come back once a version is approved.',
  not_found: 'There is nothing at this address.',
}

/**
 * Errors on web pages are pages too, with the same status as the API would give, said to a person,
 * with a way back: to the canvas a page of it was about, else home.
 */
export function errorPage(c: Context<AppEnv>, error: AppError) {
  const session = c.get('session')
  const page = (
    <ErrorPage
      status={error.status}
      title={TITLES[error.code] ?? 'Something went wrong'}
      message={MESSAGES[error.code] ?? forPeople(error.message)}
      user={viewerOf(session)}
      back={backTo(c.req.path, error.code, Boolean(session))}
    />
  )
  return c.html(page, error.status, {
    ...error.headers,
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId(c),
  })
}

/** A page of a canvas (its changes, its delete) leads back to the canvas, while it is there. */
function backTo(path: string, code: string, signedIn: boolean): Back | undefined {
  const canvas = /^\/c\/([A-Za-z0-9]{1,64})\/./.exec(path)
  if (!canvas || code === 'canvas_not_found' || !signedIn) return undefined
  return { href: `/c/${canvas[1]}`, label: 'Back to the canvas' }
}
