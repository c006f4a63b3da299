import { describe, expect, it } from 'vitest'
import { browse, call, csrfOf, json, newAccount, newCanvas } from './support/api'
import { joinedAs, keyIn, newTeam } from './support/teams'
import { connect, tool } from './support/oauth'

// Who published what (docs/api.md): every canvas names its author, lists and search filter by
// them, and the dashboard shows them; a viewer's pages offer nothing they cannot do.

type Listed = { canvas_id: string; title: string; author: { user_id: string; name: string } }

async function team() {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner, 'Writers')
  const ownerKey = await keyIn(owner, workspaceId)
  const { person: mate } = await joinedAs(owner, workspaceId, 'editor')
  const mateKey = await keyIn(mate, workspaceId)
  await newCanvas(ownerKey, 'owner text alpha', { title: 'Owner plan' })
  await newCanvas(mateKey, 'mate text alpha', { title: 'Mate plan' })
  return { owner, ownerKey, mate, mateKey, workspaceId }
}

const titles = (canvases: Listed[]) => canvases.map((c) => c.title).sort()

describe('authors', () => {
  it('every canvas names who published it, and lists and search filter by them', async () => {
    const t = await team()
    const all = await json(await call('/v1/canvases', { key: t.ownerKey }))
    const mine = all.canvases.find((c: Listed) => c.title === 'Owner plan')
    expect(mine.author).toEqual({ user_id: t.owner.userId, name: t.owner.email.split('@')[0] })
    for (const [author, expected] of [
      ['me', ['Owner plan']],
      [t.mate.email, ['Mate plan']],
      [t.mate.email.toUpperCase(), ['Mate plan']],
      [t.owner.userId, ['Owner plan']],
      ['nobody@example.com', []],
    ] as const) {
      const query = `author=${encodeURIComponent(author)}`
      const listed = await json(await call(`/v1/canvases?${query}`, { key: t.ownerKey }))
      expect(titles(listed.canvases), `list ${author}`).toEqual(expected)
      const found = await json(await call(`/v1/search?q=alpha&${query}`, { key: t.ownerKey }))
      expect(titles(found.results), `search ${author}`).toEqual(expected)
    }
    // `me` is whoever asks.
    const theirs = await json(await call('/v1/canvases?author=me', { key: t.mateKey }))
    expect(titles(theirs.canvases)).toEqual(['Mate plan'])
    const detail = await json(await call(`/v1/canvases/${mine.canvas_id}`, { key: t.mateKey }))
    expect(detail.author.user_id).toBe(t.owner.userId)
  })

  it('a display name is the name an author goes by', async () => {
    const t = await team()
    const named = await call('/settings/name', {
      method: 'POST',
      cookie: t.mate.cookie,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: await csrfOf(t.mate.cookie),
        display_name: 'Grace H.',
      }).toString(),
    })
    expect(named.status).toBe(302)
    const listed = await json(
      await call('/v1/canvases?author=' + t.mate.userId, { key: t.ownerKey }),
    )
    expect(listed.canvases[0].author).toEqual({ user_id: t.mate.userId, name: 'Grace H.' })
  })

  it('MCP lists and searches by author too', async () => {
    const t = await team()
    await call('/auth/switch', {
      method: 'POST',
      cookie: t.mate.cookie,
      json: { workspace_id: t.workspaceId },
    })
    const { tokens } = await connect(t.mate, 'canvas:read')
    const listed = await tool(tokens.access_token, 'list_canvases', { author: 'me' })
    expect(listed.structuredContent.canvases.map((c: Listed) => c.title)).toEqual(['Mate plan'])
    const found = await tool(tokens.access_token, 'search_canvases', {
      query: 'alpha',
      author: t.owner.email,
    })
    expect(found.structuredContent.results.map((c: Listed) => c.title)).toEqual(['Owner plan'])
  })

  it('the dashboard shows each canvas’s author and filters by one', async () => {
    const t = await team()
    await call('/auth/switch', {
      method: 'POST',
      cookie: t.owner.cookie,
      json: { workspace_id: t.workspaceId },
    })
    const page = await (await browse('/', { cookie: t.owner.cookie })).text()
    expect(page).toContain('data-label="Author"')
    expect(page).toContain(t.mate.email.split('@')[0])
    const filtered = await (
      await browse(`/?author=${encodeURIComponent(t.mate.userId)}`, { cookie: t.owner.cookie })
    ).text()
    expect(filtered).toContain('Mate plan')
    expect(filtered).not.toContain('Owner plan')
  })
})

describe("a viewer's pages", () => {
  it('offer no publishing and no change, and say why', async () => {
    const owner = await newAccount()
    const workspaceId = await newTeam(owner, 'Readers')
    const canvas = await newCanvas(await keyIn(owner, workspaceId), 'read me', { title: 'Brief' })
    const { person: viewer } = await joinedAs(owner, workspaceId, 'viewer')
    await call('/auth/switch', {
      method: 'POST',
      cookie: viewer.cookie,
      json: { workspace_id: workspaceId },
    })
    const dashboard = await (await browse('/', { cookie: viewer.cookie })).text()
    expect(dashboard).not.toContain('action="/upload"')
    expect(dashboard).toContain('id="viewer-note"')
    expect(dashboard).not.toContain('Make permanent')
    expect(dashboard).not.toContain('/delete"')
    const page = await (await browse(`/c/${canvas.canvas_id}`, { cookie: viewer.cookie })).text()
    for (const control of [
      'id="share"',
      'Share…',
      'Make permanent',
      'Make public',
      'New version',
    ]) {
      expect(page, control).not.toContain(control)
    }
    // What a viewer may do stays: read, and comment.
    expect(page).toContain('<iframe')
    expect(page).toContain('data-comments')
    // An editor sees it all.
    const { person: editor } = await joinedAs(owner, workspaceId, 'editor')
    await call('/auth/switch', {
      method: 'POST',
      cookie: editor.cookie,
      json: { workspace_id: workspaceId },
    })
    const full = await (await browse(`/c/${canvas.canvas_id}`, { cookie: editor.cookie })).text()
    for (const control of ['id="share"', 'Make permanent', 'New version']) {
      expect(full, control).toContain(control)
    }
  })
})
