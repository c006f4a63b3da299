import fc from 'fast-check'
import { expect, it } from 'vitest'
import { bytesOf, call, csrfOf, formPost, json, newAccount, newCanvas, upload } from './support/api'
import { heard, listening, liveLinkOf, open, SOON, type Live } from './support/live'
import { connect, mcp, tokenRequest } from './support/oauth'
import { runs } from './support/runs'
import { joinedAs, keyIn, newTeam } from './support/teams'

// Any interleaving of a member's removal, their logout, their key revoked, their app
// disconnected and their role changed, with comments and versions, against what the member
// holds open (a live page, and a wait for comments by their session, their key and their app):
// nothing reaches a credential after its end, and what has not ended goes on hearing.

type Step = 'comment' | 'version' | 'role' | 'revoke' | 'disconnect' | 'logout' | 'remove'
const STEPS: Step[] = ['comment', 'version', 'role', 'revoke', 'disconnect', 'logout', 'remove']
type Hold = 'socket' | 'session' | 'key' | 'app'

/** Which holds each ending step ends. */
const ENDS: Partial<Record<Step, Hold[]>> = {
  revoke: ['key'],
  disconnect: ['app'],
  logout: ['socket', 'session'],
  remove: ['socket', 'session', 'key', 'app'],
}

async function setUp() {
  const owner = await newAccount()
  const workspaceId = await newTeam(owner, 'Interleaved')
  const ownerKey = await keyIn(owner, workspaceId)
  const canvas = await newCanvas(ownerKey, 'v1')
  const { person } = await joinedAs(owner, workspaceId, 'editor')
  await call('/auth/switch', {
    method: 'POST',
    cookie: person.cookie,
    json: { workspace_id: workspaceId },
  })
  const key = await keyIn(person, workspaceId, 'interleaved')
  const { tokens, client } = await connect(person, 'canvas:read canvas:write')
  const link = await liveLinkOf(`/c/${canvas.canvas_id}`, person.cookie)
  const socket = await open(link!)
  await heard(socket, 1)
  const wait = `/comments/wait?timeout_s=60`
  const waits: Record<Exclude<Hold, 'socket'>, Promise<Response>> = {
    session: call(`/c/${canvas.canvas_id}${wait}`, {
      cookie: person.cookie,
      headers: { Accept: 'application/json' },
    }),
    key: call(`/v1/canvases/${canvas.canvas_id}${wait}`, { key }),
    app: mcp(tokens.access_token, 'tools/call', {
      name: 'wait_for_comments',
      arguments: { canvas_id: canvas.canvas_id, timeout_s: 60 },
    }),
  }
  // Everything is open (each recorded where the member's credentials listen) before any step.
  await listening(person.userId, canvas.canvas_id, 4)
  return {
    owner,
    ownerKey,
    workspaceId,
    canvasId: canvas.canvas_id,
    person,
    key,
    tokens,
    clientId: client.client_id,
    socket,
    waits,
  }
}

type World = Awaited<ReturnType<typeof setUp>>

/** Carries out one step; answers the text of a comment it posted, if it posted one. */
async function run(w: World, step: Step, i: number, role: { now: string }) {
  const member = `/v1/workspaces/${w.workspaceId}/members/${w.person.userId}`
  switch (step) {
    case 'comment': {
      const body = `comment ${i}`
      const res = await call(`/v1/canvases/${w.canvasId}/comments`, {
        method: 'POST',
        key: w.ownerKey,
        json: { body },
      })
      expect(res.status).toBe(201)
      return body
    }
    case 'version': {
      const fileId = await upload(w.ownerKey, bytesOf(`version ${i}`))
      const res = await call(`/v1/canvases/${w.canvasId}`, {
        method: 'PATCH',
        key: w.ownerKey,
        json: { file_id: fileId },
      })
      expect(res.status).toBe(200)
      return null
    }
    case 'role': {
      role.now = role.now === 'editor' ? 'viewer' : 'editor'
      await call(member, { method: 'PATCH', key: w.ownerKey, json: { role: role.now } })
      return null
    }
    // Whoever holds a key or an app's token may end it (RFC 7009), signed in or not.
    case 'revoke': {
      expect((await tokenRequest({ token: w.key })).status).toBe(200)
      return null
    }
    case 'disconnect': {
      const token = w.tokens.access_token
      expect((await tokenRequest({ token, client_id: w.clientId })).status).toBe(200)
      return null
    }
    case 'logout': {
      const csrf = await csrfOf(w.person.cookie)
      await call('/logout', { ...formPost({ _csrf: csrf }), cookie: w.person.cookie })
      return null
    }
    case 'remove': {
      await call(member, { method: 'DELETE', key: w.ownerKey })
      return null
    }
  }
}

/** The comments a wait answered (none when it was refused), by their bodies. */
async function answered(answer: Promise<Response>) {
  const res = await answer
  const text = await res.text()
  if (text.includes('jsonrpc')) {
    const body = JSON.parse(text)
    if (body.result.isError) return { ended: true, bodies: [] as string[] }
    return { ended: false, bodies: body.result.structuredContent.comments.map(bodyOf) }
  }
  if (res.status === 401) return { ended: true, bodies: [] as string[] }
  expect(res.status, text).toBe(200)
  return { ended: false, bodies: JSON.parse(text).comments.map(bodyOf) as string[] }
}

const bodyOf = (c: { body: string }) => c.body

/** The socket's messages of news (comments, versions) after its first `from`. */
const newsAfter = (socket: Live, from: number) =>
  socket.messages
    .slice(from)
    .filter((m) => ['comment', 'version'].includes((m as { type: string }).type))

it('nothing reaches a credential after its end, whatever the order of things', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 7 }),
      async (steps) => {
        const w = await setUp()
        const role = { now: 'editor' }
        // When each hold's credential ended: the step, and what its socket had heard by then.
        const endedAt = new Map<Hold, { step: number; heard: number }>()
        const posted: { body: string; step: number }[] = []
        const all = [...steps, 'comment', 'version'] as Step[]
        const done = new Set<Step>()
        for (const [i, step] of all.entries()) {
          // An end is an end: done again, it ends nothing more (and a logged-out person has no
          // page to log out from).
          if (ENDS[step] && done.has(step)) continue
          if (step === 'logout' && done.has('remove')) continue
          done.add(step)
          const body = await run(w, step, i, role)
          if (body) posted.push({ body, step: i })
          for (const hold of ENDS[step] ?? []) {
            if (!endedAt.has(hold)) endedAt.set(hold, { step: i, heard: w.socket.messages.length })
          }
        }
        // The socket: ended when its session did, hearing nothing after.
        const socketEnd = endedAt.get('socket')
        if (socketEnd) {
          const closed = await Promise.race([
            w.socket.closed,
            new Promise<null>((r) => setTimeout(() => r(null), SOON)),
          ])
          expect(closed?.code, steps.join(' ')).toBe(4005)
          expect(newsAfter(w.socket, socketEnd.heard), steps.join(' ')).toEqual([])
        } else {
          // It goes on hearing: the last comment reaches it.
          const last = posted.at(-1)!.body
          const deadline = Date.now() + SOON
          const hears = () =>
            w.socket.messages.some(
              (m) => (m as { comment?: { body?: string } }).comment?.body === last,
            )
          while (!hears() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
          expect(hears(), steps.join(' ')).toBe(true)
          w.socket.socket.close()
        }
        // Each wait: refused if its credential ended before any comment, else answered with
        // comments posted before its end only.
        for (const hold of ['session', 'key', 'app'] as const) {
          const { ended, bodies } = await answered(w.waits[hold])
          const end = endedAt.get(hold)
          const where = `${hold} after ${steps.join(' ')}`
          const firstComment = posted[0]
          if (end && (!firstComment || end.step < firstComment.step)) {
            expect(ended, where).toBe(true)
          }
          for (const body of bodies) {
            const at = posted.find((p) => p.body === body)!.step
            expect(!end || at < end.step, `${where}: ${body}`).toBe(true)
          }
        }
      },
    ),
    { numRuns: runs(20) },
  )
}, 300_000)
