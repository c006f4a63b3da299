import * as z from 'zod/mini'
import { statusOf, type ErrorCode } from '../lib/errors'
import { IDEMPOTENCY_KEY, id, itemPathLookup, shareToken, versionParam } from '../schema/requests'
import type * as Responses from '../schema/responses'
import type { Need } from './actor/need'
import { statementOf, type Statement } from './actor/statement'
import { docOf, partOf, type RequestPart, type RouteDoc, type ShapeName } from './route-docs'

// The API description, OpenAPI 3.1, built from the app's own route table: each documented handler
// with the validators in front of it. Shapes come from src/schema, converted to JSON Schema by zod;
// nothing here restates one.

type Route = { method: string; path: string; handler: unknown }
type Json = Record<string, unknown>

export type Parameter = {
  name: string
  in: string
  required: boolean
  schema: Json
  description?: string
}
export type Operation = {
  tags: string[]
  summary: string
  description?: string
  operationId: string
  security: Record<string, string[]>[]
  /** What the route needs of a member's credential: the least role, and the scope. */
  'x-needs'?: Need
  parameters?: Parameter[]
  requestBody?: { required: boolean; content: Record<string, { schema: Json }> }
  responses: Record<
    string,
    { description: string; headers?: Json; content?: Record<string, { schema?: Json }> }
  >
}

/** Every path parameter of the API, by name, with the schema its routes check it against. */
export const PATH_PARAMS: Record<string, z.ZodMiniType> = {
  id,
  version: versionParam,
  token: shareToken,
  key_id: id,
  webhook_id: id,
  comment_id: id,
  review_id: id,
  reply_id: id,
  workspace_id: id,
  user_id: id,
  invite_id: id,
  path: itemPathLookup,
}

type Shapes = typeof Responses

// Named shapes become components, referenced wherever a route answers them.
const componentsOf = (responses: Shapes): Record<string, z.ZodMiniType> => ({
  Canvas: responses.canvas,
  CanvasDetail: responses.canvasDetail,
  CanvasList: responses.canvasList,
  Version: responses.version,
  VersionList: responses.versionList,
  VersionItemList: responses.versionItemList,
  File: responses.file,
  Presign: responses.presign,
  Finalized: responses.finalized,
  Comment: responses.comment,
  CommentList: responses.commentList,
  Reply: responses.reply,
  Review: responses.review,
  ReviewList: responses.reviewList,
  Readership: responses.readership,
  WorkspaceReadership: responses.workspaceReadership,
  Share: responses.share,
  ShareList: responses.shareList,
  PublicShare: responses.publicShare,
  Account: responses.account,
  Me: responses.me,
  Usage: responses.usage,
  Renderer: responses.renderer,
  RendererList: responses.rendererList,
  Key: responses.key,
  KeyList: responses.keyList,
  CreatedKey: responses.createdKey,
  Webhook: responses.webhook,
  WebhookList: responses.webhookList,
  CreatedWebhook: responses.createdWebhook,
  Delivery: responses.delivery,
  DeliveryList: responses.deliveryList,
  Success: responses.success,
  Revoked: responses.revoked,
  Health: responses.health,
  Unhealthy: responses.unhealthy,
  Error: responses.error,
  ResourceMetadata: responses.resourceMetadata,
  ServerMetadata: responses.serverMetadata,
  Tokens: responses.tokens,
  RegisteredClient: responses.registeredClient,
  OAuthError: responses.oauthError,
})

export type DocumentedRoute = {
  method: string
  path: string
  doc: RouteDoc
  parts: RequestPart[]
  /** What its access step states: the credential it takes and what it needs of it. */
  statement: Statement
}

/** The documented routes, in the order the app declares them; middleware for all methods aside. */
export function documentedRoutes(routes: Route[]): DocumentedRoute[] {
  type Entry = {
    method: string
    path: string
    doc?: RouteDoc
    parts: RequestPart[]
    statement?: Statement
  }
  const found = new Map<string, Entry>()
  for (const route of routes) {
    if (route.method === 'ALL') continue
    const key = `${route.method} ${route.path}`
    let entry = found.get(key)
    if (!entry) found.set(key, (entry = { method: route.method, path: route.path, parts: [] }))
    entry.doc ??= docOf(route.handler)
    entry.statement ??= statementOf(route.handler)
    const part = partOf(route.handler)
    if (part) entry.parts.push(part)
  }
  return [...found.values()].filter(
    (r): r is DocumentedRoute => r.doc !== undefined && r.statement !== undefined,
  )
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>

/**
 * The description of the app whose routes these are, built on first use (routes do not change),
 * with the response shapes, which load then.
 */
export function apiDescription(routes: () => Route[]): () => Promise<OpenApiDocument> {
  let document: Promise<OpenApiDocument> | undefined
  return () =>
    (document ??= import('../schema/responses').then((shapes) => openApiDocument(routes(), shapes)))
}

export function openApiDocument(routes: Route[], shapes: Shapes) {
  const named = componentsOf(shapes)
  const registry = z.registry<{ id: string }>()
  for (const [name, schema] of Object.entries(named)) registry.add(schema, { id: name })
  const components = z.toJSONSchema(registry, {
    uri: (name) => `#/components/schemas/${name}`,
  }).schemas
  // zod names each component by a fragment `$id`, which JSON Schema 2020-12 does not allow.
  for (const schema of Object.values(components)) {
    delete schema.$schema
    delete schema.$id
  }
  const names = new Map(Object.entries(named).map(([name, schema]) => [schema, name]))
  const ref = (shape: ShapeName): Json => {
    const schema: z.ZodMiniType = shapes[shape]
    const name = names.get(schema)
    return name ? { $ref: `#/components/schemas/${name}` } : jsonSchema(schema, 'output')
  }

  const paths: Record<string, Record<string, Operation>> = {}
  for (const route of documentedRoutes(routes)) {
    // `:path{.+}`: the pattern is Hono's, the name OpenAPI's.
    const path = route.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = operation(route, ref)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Canvas API',
      version: '1',
      description:
        'Publish files as live, versioned, shareable pages. Errors share one envelope: ' +
        '`{"error":{"code","message","request_id"}}`; the status follows from the code.',
    },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`svc_...`), created on the Settings page.',
        },
        session: { type: 'apiKey', in: 'cookie', name: 'canvas_session' },
        oauth: {
          type: 'oauth2',
          description:
            'An access token a chat app got with a person’s approval (authorization code with ' +
            'PKCE S256; clients register at /oauth/register or use a metadata document URL as ' +
            'client_id).',
          flows: {
            authorizationCode: {
              authorizationUrl: '/oauth/authorize',
              tokenUrl: '/oauth/token',
              refreshUrl: '/oauth/token',
              scopes: {
                'canvas:read': 'List and read canvases',
                'canvas:write': 'Publish, change, share and delete canvases (includes reading)',
              },
            },
          },
        },
      },
    },
  }
}

function operation(route: DocumentedRoute, ref: (shape: ShapeName) => Json): Operation {
  const { doc, parts } = route
  const parameters: Parameter[] = []
  for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: jsonSchema(PATH_PARAMS[name], 'input'),
    })
  }
  for (const part of parts.filter((p) => p.target === 'query')) {
    const schema = jsonSchema(part.schema, 'input') as { properties?: Record<string, Json> }
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      parameters.push({ name, in: 'query', required: false, schema: property })
    }
  }
  if (idempotent(route)) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: the first request under a key runs and its answer is kept for 24 h; ' +
        'the same request again gets that answer (with `Idempotent-Replayed: true`) and has no ' +
        'second effect. 1 to 255 printable ASCII characters.',
      schema: { type: 'string', pattern: IDEMPOTENCY_KEY.source },
    })
  }
  for (const header of doc.headers ?? []) {
    parameters.push({ ...header, in: 'header', required: false, schema: { type: 'string' } })
  }
  const body = parts.find((p) => p.target === 'json')
  const answers: Operation['responses'] = {}
  for (const [status, answer] of Object.entries(doc.responses)) {
    const content = answer.schema
      ? { 'application/json': { schema: ref(answer.schema) } }
      : answer.contentType
        ? { [answer.contentType]: {} }
        : undefined
    const headers = answer.headers
      ? Object.fromEntries(
          Object.entries(answer.headers).map(([name, description]) => [
            name,
            { description, schema: { type: 'string' } },
          ]),
        )
      : undefined
    answers[status] = { description: answer.description, headers, content }
  }
  if (doc.oauthErrors) {
    for (const [status, description] of Object.entries(doc.oauthErrors)) {
      answers[status] = {
        description,
        content: { 'application/json': { schema: ref('oauthError') } },
      }
    }
  } else {
    for (const [status, codes] of errorsByStatus(route)) {
      answers[status] = {
        description: codes.map((code) => `\`${code}\``).join(', '),
        content: { 'application/json': { schema: ref('error') } },
      }
    }
  }
  return {
    tags: [doc.tag],
    summary: doc.summary,
    description: described(doc.description, route.statement),
    operationId: operationId(route),
    security: securityOf(route.statement),
    'x-needs': route.statement.need,
    parameters: parameters.length ? parameters : undefined,
    requestBody: body ? requestBody(body) : undefined,
    responses: answers,
  }
}

/** How a route's credential is sent, as its access step states it. */
function securityOf(statement: Statement): Record<string, string[]>[] {
  if (statement.kind === 'key') {
    return statement.token ? [{ apiKey: [] }, { oauth: ['canvas:read'] }] : [{ apiKey: [] }]
  }
  return statement.kind === 'session' ? [{ session: [] }] : []
}

/** The route's description, and what it needs of its caller, in words. */
function described(description: string | undefined, { need, workspace }: Statement) {
  if (!need) return description
  const where = workspace === 'path' ? 'the workspace of the path' : 'the workspace'
  const role =
    need.role === 'viewer' ? `Any member of ${where}` : `The ${need.role} role in ${where}`
  const says = `${role}, with the \`${need.scope}\` scope.`
  return description ? `${description}\n\nNeeds: ${says}` : `Needs: ${says}`
}

/** The codes a route can answer, grouped by status: its own and those of every route like it. */
export function errorCodes(route: DocumentedRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.doc.errors)
  if (route.parts.length || route.path.includes(':')) codes.add('invalid_request')
  if (route.statement.kind === 'key') {
    codes.add('unauthorized').add('forbidden').add('rate_limited')
  }
  if (route.statement.kind === 'session') codes.add('unauthorized').add('forbidden')
  if (idempotent(route)) codes.add('idempotency_in_progress').add('idempotency_key_reused')
  codes.add('internal_error')
  return [...codes]
}

/** Every write under /v1 takes Idempotency-Key (http/idempotency.ts). */
const idempotent = (route: DocumentedRoute) =>
  route.statement.kind === 'key' && route.method !== 'GET' && route.path.startsWith('/v1/')

function errorsByStatus(route: DocumentedRoute): [number, ErrorCode[]][] {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of errorCodes(route)) {
    const status = statusOf(code)
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return [...byStatus].sort(([a], [b]) => a - b)
}

function requestBody(part: RequestPart): NonNullable<Operation['requestBody']> {
  const schema = jsonSchema(part.schema, 'input')
  const content: Record<string, { schema: Json }> = { 'application/json': { schema } }
  if (part.multipart) {
    content['multipart/form-data'] = {
      schema: {
        type: 'object',
        description:
          'The same fields as text parts (file_id aside), with the content as a part named `file`.',
        properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
        required: ['file'],
      },
    }
  }
  return { required: !part.optional, content }
}

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Json {
  // Refinements (such as "no control characters") have no JSON Schema form; their rule is in the
  // 400 message a request breaking it gets.
  const { $schema, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' })
  void $schema
  return rest
}

function operationId({ method, path }: { method: string; path: string }): string {
  const words = path
    .split('/')
    .filter((s) => s && s !== 'v1')
    .map((s) =>
      s.startsWith(':') ? 'by_' + s.slice(1).replace(/\{.*$/, '') : s.replace(/\W/g, '_'),
    )
  return [method.toLowerCase(), ...words].join('_')
}
