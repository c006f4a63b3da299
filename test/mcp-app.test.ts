import { beforeAll, describe, expect, it } from 'vitest'
import { newAccount, newKey, type Account } from './support/api'
import { connect, ok } from './support/mcp'

// MCP Apps: the view of a canvas as a `ui://` resource, and the tools whose answers it shows.

const URI = 'ui://canvas/view.html'
const SHOWN = ['publish', 'get_canvas', 'update_canvas', 'edit_canvas']

let owner: Account

beforeAll(async () => {
  owner = await newAccount()
})

describe('MCP Apps', () => {
  it('lists the view as a ui:// resource of the MCP Apps type', async () => {
    const client = await connect(owner.key)
    expect(client.getServerCapabilities()?.resources).toBeDefined()
    const { resources } = await client.listResources()
    expect(resources).toEqual([
      expect.objectContaining({
        uri: URI,
        name: 'canvas-view',
        mimeType: 'text/html;profile=mcp-app',
      }),
    ])
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([])
    await client.close()
  })

  it('reads the view: one static HTML document that asks for no network, frame or resource', async () => {
    const client = await connect(owner.key)
    const { contents } = await client.readResource({ uri: URI })
    expect(contents).toHaveLength(1)
    const [view] = contents as [{ uri: string; mimeType: string; text: string; _meta: any }]
    expect(view.uri).toBe(URI)
    expect(view.mimeType).toBe('text/html;profile=mcp-app')
    expect(view.text).toMatch(/^<!doctype html>\n<html lang="en">/)
    expect(view.text.trimEnd()).toMatch(/<\/html>$/)
    // No domains declared: the host's strictest default policy applies.
    expect(view._meta).toEqual({ ui: { prefersBorder: true } })
    // Nothing loaded from anywhere, nothing written as HTML.
    expect(view.text).not.toMatch(
      /\bsrc=|<iframe|<link|@import|url\(|innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/,
    )
    expect(view.text).not.toMatch(/https?:\/\//)
    // The same for anyone: no user's data in it.
    const other = await connect((await newAccount()).key)
    expect((await other.readResource({ uri: URI })).contents).toEqual(contents)
    await client.close()
    await other.close()
  })

  it('answers a resource that does not exist with MCP’s resource-not-found error', async () => {
    const client = await connect(owner.key)
    for (const uri of ['ui://canvas/other.html', 'ui://canvas/view.html?x', 'file:///etc/passwd']) {
      await expect(client.readResource({ uri })).rejects.toMatchObject({
        code: -32002,
        message: expect.stringContaining(`no resource at ${uri}`),
      })
    }
    await client.close()
  })

  it('a read key may list and read the view', async () => {
    const reader = await connect(await newKey(owner.cookie, ['read']))
    expect((await reader.listResources()).resources.map((r) => r.uri)).toEqual([URI])
    expect((await reader.readResource({ uri: URI })).contents).toHaveLength(1)
    await reader.close()
  })

  it('names the view in _meta.ui.resourceUri of the tools that answer a canvas, and only those', async () => {
    const client = await connect(owner.key)
    const { tools } = await client.listTools()
    const pointing = tools.filter((t) => t._meta?.ui).map((t) => t.name)
    expect(pointing.sort()).toEqual([...SHOWN].sort())
    for (const tool of tools.filter((t) => SHOWN.includes(t.name))) {
      expect(tool._meta).toEqual({ ui: { resourceUri: URI } })
      // What the view reads from the answer: a canvas with its page.
      expect(tool.outputSchema?.required).toEqual(
        expect.arrayContaining(['canvas_id', 'title', 'version', 'view_url']),
      )
    }
    // Each of them answers the canvas the view shows.
    const canvas = await ok(client, 'publish', { content: '# Shown', filename: 'shown.md' })
    const id = canvas.canvas_id
    for (const answer of [
      canvas,
      await ok(client, 'get_canvas', { canvas_id: id }),
      await ok(client, 'update_canvas', { canvas_id: id, title: 'Shown' }),
      await ok(client, 'edit_canvas', { canvas_id: id, edits: [{ old: 'Shown', new: 'Seen' }] }),
    ]) {
      expect(answer).toMatchObject({ canvas_id: id, view_url: canvas.view_url })
    }
    await client.close()
  })
})
