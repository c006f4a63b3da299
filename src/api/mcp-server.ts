import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import * as z from 'zod/mini'
import { AppError, validationError } from '../lib/errors'
import { publicOrigin, requestId, requestOrigin, type AppContext } from '../http/context'
import { toAppError, logError } from '../http/errors'
import { database } from '../storage/db'
import { storageTarget } from '../storage/target'
import { FAVICON_PATH } from '../lib/brand'
import { may, requireNeed, type Need } from '../http/actor/need'
import { APP_HTML, APP_META, APP_RESOURCE, APP_URI } from './mcp-app'
import { once } from './mcp-once'
import { TOOLS } from './mcp-tools'
import type { ToolContext } from './mcp-tool'

// The MCP server itself, on the official SDK: loaded by the /mcp route (mcp.ts) when a request
// first reaches it, so that no other request, and not the Worker's start, runs the SDK's setup.

type Icon = { src: string; mimeType: string; sizes: string[] }

/** The service's mark, for the server and each tool (MCP 2025-11-25), as this server serves it. */
const iconsAt = (origin: string): Icon[] => [
  { src: `${origin}${FAVICON_PATH}`, mimeType: 'image/svg+xml', sizes: ['any'] },
]

// The SDK asks a validator only to check what a client answers to a server's question
// (elicitation); this server asks none, so none is built (the default would bring a JSON Schema
// compiler into the Worker, see wrangler.jsonc).
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => {
    throw new Error('this server does not ask clients for input')
  },
}

type Listed = {
  /** What a credential needs to call it: only those it may call are listed to it. */
  need: Need
  name: string
  title: string
  description: string
  annotations: {
    title: string
    readOnlyHint: boolean
    destructiveHint?: boolean
    idempotentHint?: boolean
    openWorldHint: boolean
  }
  inputSchema: Record<string, unknown>
  outputSchema: Record<string, unknown>
  _meta?: { ui: { resourceUri: string } }
}
/** What a tool's description adds of its need, so an agent reading the list knows it up front. */
function needed(need: Need): string {
  if (need.scope === 'read') return ''
  const role = need.role === 'viewer' ? '' : `the ${need.role} role and `
  return ` Needs ${role}a credential that writes.`
}

let listed: Listed[]
const listTools = () =>
  (listed ??= TOOLS.map((tool) => ({
    need: tool.need,
    name: tool.name,
    title: tool.title,
    description: tool.description + needed(tool.need),
    annotations: {
      title: tool.title,
      readOnlyHint: tool.need.scope === 'read',
      ...(tool.effect && {
        destructiveHint: tool.effect.destructive,
        idempotentHint: tool.effect.idempotent,
      }),
      openWorldHint: false,
    },
    inputSchema: jsonSchema(tool.input, 'input'),
    outputSchema: jsonSchema(tool.output, 'output'),
    // Every client is told: a stateless server does not know, when listing, what the client
    // said it supports in its initialize request; a client without MCP Apps ignores `_meta`.
    ...(tool.shows === 'canvas' ? { _meta: { ui: { resourceUri: APP_URI } } } : {}),
  })))

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output') {
  const { $schema, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    // A time's format says it all: its pattern, long, would be repeated for every time listed.
    override: ({ jsonSchema }) => {
      if (jsonSchema.format === 'date-time') delete jsonSchema.pattern
    },
  })
  void $schema
  return json
}

/** One JSON-RPC message answered by a stateless server built for this request. */
export async function answerMcp(c: AppContext, parsedBody: unknown): Promise<Response> {
  const server = buildServer(c)
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  })
  await server.connect(transport)
  return transport.handleRequest(c.req.raw, { parsedBody })
}

function buildServer(c: AppContext) {
  const ctx: ToolContext = {
    svc: c.var.svc,
    primary: { ...c.var.svc, db: database(c.env.DB) },
    actor: c.var.actor,
    origin: publicOrigin(c).origin,
    storage: () => storageTarget(c.var.svc.settings, requestOrigin(c)),
  }
  const info = { name: 'canvas', title: 'Canvas', version: '1.0.0', icons: iconsAt(ctx.origin) }
  const server = new Server(info, {
    capabilities: { tools: {}, resources: {} },
    instructions:
      'Canvas publishes files as web pages. `publish` a file (HTML, Markdown, CSV, JSON, SVG, ' +
      'images, PDF, code) and give the person its `view_url`; publish again with `canvas_id` for a new ' +
      'version, or `edit_canvas` to change part of a text; `share_canvas` for a link that needs ' +
      'no account. When people comment on a canvas: `list_comments`, publish a new version that ' +
      'answers them, `reply_comment` to say what changed, and `resolve_comment`.',
    jsonSchemaValidator: NO_ELICITATION,
  })
  // A credential sees the tools it may call: by its role and its scopes, as each tool states.
  const icons = iconsAt(ctx.origin)
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: listTools()
      .filter((t) => may(ctx.actor, t.need))
      .map(({ need: _, ...t }) => ({ ...t, icons })),
  }))
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [APP_RESOURCE] }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }))
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (request.params.uri !== APP_URI) {
      // MCP's code for a resource that does not exist.
      throw new McpError(-32002, `no resource at ${request.params.uri}`)
    }
    const { uri, mimeType } = APP_RESOURCE
    return { contents: [{ uri, mimeType, text: APP_HTML, _meta: APP_META }] }
  })
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${request.params.name}`)
    try {
      // An app's read-only grant was answered with a step-up already (mcp.ts): a refusal here
      // says whether the role or the key's scope is the reason.
      await requireNeed(ctx.svc, ctx.actor, tool.need)
      const args = tool.input.safeParse(request.params.arguments ?? {})
      if (!args.success) throw validationError(args.error)
      const { idempotency_key: key, ...rest } = args.data as { idempotency_key?: string }
      if (key === undefined) return answer(await tool.run(ctx, rest))
      const { result, replayed } = await once(c, key, tool.name, rest, () => tool.run(ctx, rest))
      return { ...answer(result), ...(replayed ? { _meta: { idempotent_replayed: true } } : {}) }
    } catch (err) {
      const error = toAppError(err)
      if (error.status >= 500) logError(err, requestId(c))
      return failure(error, requestId(c))
    }
  })
  return server
}

function answer(result: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result, null, 2) }],
    structuredContent: result as Record<string, unknown>,
  }
}

function failure(error: AppError, id: string): CallToolResult {
  const message = error.code === 'internal_error' ? `internal error (request ${id})` : error.message
  return { content: [{ type: 'text', text: `${error.code}: ${message}` }], isError: true }
}
