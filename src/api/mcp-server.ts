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
import * as z from 'zod/mini'
import { AppError, validationError } from '../lib/errors'
import { publicOrigin, requestId, requestOrigin, type AppContext } from '../http/context'
import { toAppError, logError } from '../http/errors'
import { storageTarget } from '../storage/target'
import { once } from './mcp-once'
import { TOOLS, type ToolContext } from './mcp-tools'

// The MCP server itself, on the official SDK: loaded by the /mcp route (mcp.ts) when a request
// first reaches it, so that no other request, and not the Worker's start, runs the SDK's setup.

const SERVER_INFO = { name: 'canvas', version: '1.0.0' }

// The SDK asks a validator only to check what a client answers to a server's question
// (elicitation); this server asks none, so none is built (the default would bring a JSON Schema
// compiler into the Worker, see wrangler.jsonc).
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => {
    throw new Error('this server does not ask clients for input')
  },
}

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
