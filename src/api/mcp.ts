import { Hono } from 'hono'
import { AppError } from '../lib/errors'
import { keyOrToken, open } from '../http/actor/steps'
import { READ } from '../http/actor/need'
import { authorize } from '../http/actor/key'
import type { AppEnv } from '../http/context'
import { insufficientScope } from '../http/oauth'
import { documented } from '../http/route-docs'
import { allows } from '../domain/workspaces/roles'
import { readBytes } from '../http/validate'

// POST /mcp: a Model Context Protocol server on the Streamable HTTP transport, stateless (every
// POST stands alone, so any isolate can answer it). A Bearer API key as for /v1, rate-limited the
// same way, or an OAuth access token a chat app got with a person's approval (http/oauth.ts); a
// read key or grant lists and reads, a write one may also change. The tools (their schemas, and
// the domain calls behind them) load with the first MCP request, not with the Worker.

// Tool arguments are JSON; the largest a publish can carry is the direct upload limit, base64.
const BODY_OVERHEAD = 64 * 1024

export const mcp = new Hono<AppEnv>()

mcp.post(
  '/',
  keyOrToken(READ),
  documented({
    summary: 'MCP server',
    description:
      'Model Context Protocol over Streamable HTTP (JSON-RPC 2.0), stateless. Its tools are ' +
      'what `tools/list` answers (/llms.txt lists them). ' +
      'A tool’s failure is a result with `isError: true` whose text starts with the error code. ' +
      'Takes an API key, or an OAuth access token (a chat app connecting by this URL alone ' +
      'gets a 401 whose `WWW-Authenticate` names the protected resource metadata).',
    tag: 'Agents',
    responses: { 200: { description: 'The JSON-RPC answer.', contentType: 'application/json' } },
    errors: ['invalid_request', 'payload_too_large'],
  }),
  async (c) => {
    // An access token was judged by the access step already.
    if (!c.var.actor) await authorize(c)
    const limit = Math.ceil((c.var.svc.settings.maxDirectUploadBytes * 4) / 3) + BODY_OVERHEAD
    const parsedBody = parseJson(await readBytes(c, limit, 'MCP message'))
    // One message per request (the protocol dropped batches in 2025-06-18): a batch would run its
    // calls at once, all on the one rate-limit token this request took.
    if (Array.isArray(parsedBody)) {
      throw new AppError('invalid_request', 'send one JSON-RPC message per request, not a batch')
    }
    const malformed = malformedCall(parsedBody)
    if (malformed) return c.json(malformed)
    // An app granted reading asks to change something: the answer lets it ask the person for
    // write access. Not when the person's role is what stops it (a viewer: approving again would
    // change nothing), nor for a key, which cannot be widened: those calls are answered as a
    // failed tool (mcp-server.ts), saying why.
    const { actor } = c.var
    const granted = actor.by.granted ?? actor.scopes
    if (actor.by.kind === 'agent' && !granted.includes('write') && allows(actor.role, 'write')) {
      if (await callsWriteTool(parsedBody)) {
        throw new AppError(
          'forbidden',
          'this app was granted read access only: ask for canvas:write',
          {
            'WWW-Authenticate': insufficientScope(c, 'canvas:read canvas:write'),
          },
        )
      }
    }
    const { answerMcp } = await import('./mcp-server')
    const response = await answerMcp(c, parsedBody)
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
    // JSON-RPC's invalid params (ErrorCode.InvalidParams of the SDK).
    error: { code: -32602, message: problem },
  }
}

/** A tools/call of a tool that changes something. */
async function callsWriteTool(message: unknown) {
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params)) {
    return false
  }
  const name = message.params.name
  const { TOOLS } = await import('./mcp-tools')
  return TOOLS.some((tool) => tool.name === name && tool.need.scope === 'write')
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes))
  } catch {
    throw new AppError('invalid_request', 'malformed JSON in request body')
  }
}
