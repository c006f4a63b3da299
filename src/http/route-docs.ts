import type { MiddlewareHandler } from 'hono'
import type * as z from 'zod/mini'
import type { ErrorCode } from '../lib/errors'
import type * as Shapes from '../schema/responses'

// What the API description (/openapi.json) knows of a route, kept on the route's own functions so
// it cannot drift from them: a route's description rides on a middleware that only passes the
// request on (a wrapper around the handler would hide its types from Hono), and each validator
// carries the schema it validates with.

export type Tag =
  | 'Canvases'
  | 'Versions and content'
  | 'Uploads'
  | 'Shares'
  | 'Public shares'
  | 'Comments'
  | 'Reviews'
  | 'Readership'
  | 'Account'
  | 'Webhooks'
  | 'Workspaces'
  | 'Web session'
  | 'Agents'
  | 'OAuth'
  | 'Service'

/**
 * A response shape, by its name in src/schema/responses.ts: named rather than held, so that the
 * shapes load with the API description (its first request), not with the Worker.
 */
export type ShapeName = {
  [K in keyof typeof Shapes]: (typeof Shapes)[K] extends z.ZodMiniType ? K : never
}[keyof typeof Shapes]

export type Answer = {
  description: string
  /** A JSON answer's shape; without it the answer has no JSON body (a redirect, a page, text). */
  schema?: ShapeName
  /** The media type of an answer that is not JSON. */
  contentType?: string
  /** Headers the answer carries, by name. */
  headers?: Record<string, string>
}

export type RouteDoc = {
  summary: string
  description?: string
  tag: Tag
  responses: Record<number, Answer>
  /** Error codes this route can answer beyond those every route of its kind can. */
  errors?: ErrorCode[]
  /**
   * A route of the OAuth protocol (token, registration) answers its errors in OAuth's own form,
   * `{error, error_description}`, not the envelope: their descriptions by status.
   */
  oauthErrors?: Record<number, string>
  /** Request headers the route reads. */
  headers?: { name: string; description: string }[]
}

export type RequestPart = {
  target: 'json' | 'query'
  schema: z.ZodMiniType
  /** Also accepted as multipart/form-data with a `file` part (a direct upload). */
  multipart?: boolean
  /** The body may be left out entirely. */
  optional?: boolean
}

const DOC = Symbol('route doc')
const PART = Symbol('request part')

type Documented = { [DOC]?: RouteDoc }
type Described = { [PART]?: RequestPart }

/** The step in place of `documented`, for routes mounted where the description leaves them out. */
export const documentedNot: MiddlewareHandler = (_c, next) => next()

/** Describes the route it is registered on, and passes every request on. */
export function documented(doc: RouteDoc): MiddlewareHandler {
  return Object.assign((_: unknown, next: () => Promise<void>) => next(), { [DOC]: doc })
}

/** A handler that must stay the only function of its route (see /health), carrying its description. */
export function documentedHandler<H extends object>(doc: RouteDoc, handler: H): H {
  return Object.assign(handler, { [DOC]: doc })
}

/** The validator middleware, carrying the request part it validates. */
export function describing<M extends object>(part: RequestPart, middleware: M): M {
  return Object.assign(middleware, { [PART]: part })
}

export const docOf = (fn: unknown): RouteDoc | undefined => (fn as Documented)[DOC]
export const partOf = (fn: unknown): RequestPart | undefined => (fn as Described)[PART]
