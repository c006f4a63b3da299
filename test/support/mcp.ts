import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker-provider.js'
import { expect } from 'vitest'
import { call, ORIGIN } from './api'

// The MCP server as an agent meets it: the SDK's own client over HTTP, through the Worker's
// fetch handler.

export async function connect(key?: string, env?: Record<string, string>) {
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
    requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : {},
    fetch: (url, init) => call(String(url), { ...init, env }),
  })
  // workerd refuses code generation, which the SDK's default validator needs.
  const client = new Client(
    { name: 'test', version: '1.0.0' },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  )
  await client.connect(transport)
  // Listing the tools makes the client check every answer against its tool's outputSchema.
  await client.listTools()
  return client
}

export type Result = {
  content: { type: string; text: string }[]
  isError?: boolean
  structuredContent?: any
}

export async function use(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as Result
}

export async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await use(client, name, args)
  expect(result.isError, result.content[0]?.text).toBeFalsy()
  expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent)
  return result.structuredContent
}

export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  code: string,
) {
  const result = await use(client, name, args)
  expect(result.isError).toBe(true)
  expect(result.content[0].text).toMatch(new RegExp(`^${code}: `))
  return result.content[0].text
}
