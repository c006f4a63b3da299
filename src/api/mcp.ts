import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { Hono } from 'hono'
import * as z from 'zod/mini'
import { AppError, validationError } from '../lib/errors'
import { keyInBatch, open } from '../http/access'
import { authorizeFor } from '../http/auth'
import {
  publicOrigin,
  requestId,
  requestOrigin,
  type AppContext,
  type AppEnv,
} from '../http/context'
import { toAppError, logError } from '../http/errors'
import { documented } from '../http/route-docs'
import { readBytes } from '../http/validate'
import { storageTarget } from '../storage/target'
import { once } from './mcp-once'
import { TOOLS, type ToolContext } from './mcp-tools'

// POST /mcp: a Model Context Protocol server on the Streamable HTTP transport, stateless (every
// POST stands alone, so any isolate can answer it). A Bearer API key as for /v1, rate-limited the
// same way; a read key lists and reads, a write key may also change.

const SERVER_INFO = { name: 'canvas', version: '1.0.0' }

// The SDK asks a validator only to check what a client answers to a server's question
// (elicitation); this server asks none, so none is built (the default would bring a JSON Schema
// compiler into the Worker, see wrangler.jsonc).
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => {
    throw new Error('this server does not ask clients for input')
  },
}

// Tool arguments are JSON; the largest a publish can carry is the direct upload limit, base64.
const BODY_OVERHEAD = 64 * 1024

let listed: { name: string; description: string; inputSchema: Record<string, unknown> }[]
const listTools = () =>
  (listed ??= TOOLS.map((tool) => {
    const { $schema, ...schema } = z.toJSONSchema(tool.input, {
      io: 'input',
      unrepresentable: 'any',
    })
    void $schema
    return {
      name: tool.name,
      description: tool.description + (tool.write ? ' Needs a key with the write scope.' : ''),
      inputSchema: schema,
    }
  }))

export const mcp = new Hono<AppEnv>()

mcp.post(
  '/',
  keyInBatch,
  documented({
    summary: 'MCP server',
    description:
      'Model Context Protocol over Streamable HTTP (JSON-RPC 2.0), stateless. Tools: ' +
      TOOLS.map((t) => '`' + t.name + '`').join(', ') +
      '. A tool’s failure is a result with `isError: true` whose text starts with the error code.',
    tag: 'Agents',
    auth: 'key',
    responses: { 200: { description: 'The JSON-RPC answer.', contentType: 'application/json' } },
    errors: ['invalid_request', 'payload_too_large'],
  }),
  async (c) => {
    await authorizeFor(c, 'read')
    const limit = Math.ceil((c.var.svc.settings.maxDirectUploadBytes * 4) / 3) + BODY_OVERHEAD
    const parsedBody = parseJson(await readBytes(c, limit, 'MCP message'))
    // One message per request (the protocol dropped batches in 2025-06-18): a batch would run its
    // calls at once, all on the one rate-limit token this request took.
    if (Array.isArray(parsedBody)) {
      throw new AppError('invalid_request', 'send one JSON-RPC message per request, not a batch')
    }
    const malformed = malformedCall(parsedBody)
    if (malformed) return c.json(malformed)
    const server = buildServer(c)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    const response = await transport.handleRequest(c.req.raw, { parsedBody })
    // The transport makes its own Response: the headers set for this request go onto it.
    const headers = new Headers(response.headers)
    headers.set('Cache-Control', 'no-store')
    return new Response(response.body, { status: response.status, headers })
  },
)

// A stateless server has no stream to resume and no session to end.
for (const method of ['GET', 'DELETE'] as const) {
  mcp.on(
    method,
    '/',
    open,
    documented({
      summary: `MCP: ${method} (not used)`,
      description: 'This server is stateless: clients POST every message.',
      tag: 'Agents',
      auth: 'none',
      responses: {},
      errors: ['method_not_allowed'],
    }),
    () => {
      throw new AppError('method_not_allowed', 'this MCP server is stateless: POST to /mcp', {
        Allow: 'POST',
      })
    },
  )
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A tools/call whose params the SDK would refuse with an internal error and its schema library's
 * issues as the message: answered here as invalid params, in one line a client can show.
 */
function malformedCall(message: unknown) {
  if (!isObject(message) || message.method !== 'tools/call' || !('id' in message)) return null
  const params = message.params
  const problem = !isObject(params)
    ? 'params: must be an object with name and arguments'
    : typeof params.name !== 'string'
      ? 'params.name: must be a tool name (a string)'
      : params.arguments !== undefined && !isObject(params.arguments)
        ? 'params.arguments: must be an object'
        : null
  if (!problem) return null
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: ErrorCode.InvalidParams, message: problem },
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes))
  } catch {
    throw new AppError('invalid_request', 'malformed JSON in request body')
  }
}

function buildServer(c: AppContext) {
  const ctx: ToolContext = {
    svc: c.var.svc,
    auth: c.var.auth,
    origin: publicOrigin(c).origin,
    storage: () => storageTarget(c.var.svc.settings, requestOrigin(c)),
  }
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      'Canvas publishes files as web pages. `publish` a file (HTML, Markdown, CSV, JSON, SVG, ' +
      'images, PDF, code) and give the person its `view_url`; publish again with `canvas_id` for a new ' +
      'version; `share_canvas` for a link that needs no account.',
    jsonSchemaValidator: NO_ELICITATION,
  })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${request.params.name}`)
    try {
      if (tool.write && !ctx.auth.scopes.includes('write')) {
        throw new AppError('forbidden', "this API key lacks the 'write' scope")
      }
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
