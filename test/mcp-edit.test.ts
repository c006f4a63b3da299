import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { updateCanvas } from '../src/domain/canvases/canvases'
import { applyEdits } from '../src/domain/canvases/text-edits'
import { call, newAccount, newKey, type Account } from './support/api'
import { wild } from './support/hostile-values'
import { connect, fails, ok, use } from './support/mcp'
import { snapshot } from './support/state'
import { realServices } from './support/state'
import { runs } from './support/runs'

// edit_canvas: literal replacements in a text canvas (or one file of a site), all of them in one
// new version or none at all.

let owner: Account

beforeAll(async () => {
  owner = await newAccount()
})

const text = async (client: Awaited<ReturnType<typeof connect>>, args: Record<string, unknown>) =>
  (await ok(client, 'read_canvas', args)).text as string

const versionsOf = async (client: Awaited<ReturnType<typeof connect>>, canvas_id: string) =>
  (await ok(client, 'list_versions', { canvas_id })).versions.map((v: any) => v.version)

/** The stored bytes of a canvas's latest version, by the API's download. */
async function bytesOf(canvasId: string) {
  const res = await call(`/v1/canvases/${canvasId}/content`, { key: owner.key })
  const found = await call(res.headers.get('Location')!)
  return new Uint8Array(await found.arrayBuffer())
}

describe('edit_canvas', () => {
  it('applies the edits in order, each to the result of the one before, as one new version', async () => {
    const client = await connect(owner.key)
    const canvas = await ok(client, 'publish', {
      content: '# Plan\n\nStatus: draft\nOwner: Ann\n',
      filename: 'plan.md',
    })
    const edited = await ok(client, 'edit_canvas', {
      canvas_id: canvas.canvas_id,
      edits: [
        { old: 'Status: draft', new: 'Status: final' },
        // Only there once the edit before it is made.
        { old: 'final\nOwner: Ann', new: 'final\nOwner: Bo' },
        // Replacements are literal: `$&` is two characters, not the match.
        { old: '# Plan', new: '# Plan $& $1' },
      ],
    })
    expect(edited).toMatchObject({
      canvas_id: canvas.canvas_id,
      version: 2,
      ext: 'md',
      renderer_id: 'markdown',
      title: 'plan.md',
      view_url: canvas.view_url,
    })
    expect(await text(client, { canvas_id: canvas.canvas_id })).toBe(
      '# Plan $& $1\n\nStatus: final\nOwner: Bo\n',
    )
    expect(await text(client, { canvas_id: canvas.canvas_id, version: 1 })).toBe(
      '# Plan\n\nStatus: draft\nOwner: Ann\n',
    )
    expect(await versionsOf(client, canvas.canvas_id)).toEqual([2, 1])
    const detail = await ok(client, 'get_canvas', { canvas_id: canvas.canvas_id })
    expect(detail.items).toBeUndefined()
    expect(detail.file).toMatchObject({ mime: expect.stringMatching(/^text\/markdown/) })
    // Deleting is replacing with nothing.
    await ok(client, 'edit_canvas', {
      canvas_id: canvas.canvas_id,
      edits: [{ old: ' $& $1', new: '' }],
    })
    expect(await text(client, { canvas_id: canvas.canvas_id })).toBe(
      '# Plan\n\nStatus: final\nOwner: Bo\n',
    )
  })

  it('changes only the bytes it replaces: a byte order mark and other characters stay', async () => {
    const client = await connect(owner.key)
    const original = '\ufeffcafé 😀\tx'
    const canvas = await ok(client, 'publish', { content: original, filename: 'bom.txt' })
    await ok(client, 'edit_canvas', {
      canvas_id: canvas.canvas_id,
      edits: [{ old: 'x', new: 'y' }],
    })
    const bytes = await bytesOf(canvas.canvas_id)
    expect(bytes).toEqual(new TextEncoder().encode(original.replace('x', 'y')))
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
  })

  it('makes no version when an old text is missing or occurs more than once', async () => {
    const client = await connect(owner.key)
    const canvas = await ok(client, 'publish', {
      content: 'alpha\nbeta\nalpha\naaa\n',
      filename: 'words.txt',
    })
    const id = canvas.canvas_id
    const before = await snapshot(owner.workspaceId)
    const cases: [unknown[], RegExp][] = [
      [[{ old: 'gamma', new: 'x' }], /^invalid_request: edits\.0\.old: not found in the text$/],
      [
        [{ old: 'alpha', new: 'x' }],
        /^invalid_request: edits\.0\.old: occurs more than once in the text, on lines 1 and 3; /,
      ],
      // Overlapping occurrences count: "aa" is in "aaa" twice.
      [[{ old: 'aa', new: 'b' }], /^invalid_request: edits\.0\.old: occurs more than once/],
      // The first edit would apply; the second fails, so neither is made.
      [
        [
          { old: 'beta', new: 'delta' },
          { old: 'beta', new: 'x' },
        ],
        /^invalid_request: edits\.1\.old: not found in the text \(after the edits before it\)$/,
      ],
      [
        [
          { old: 'beta', new: 'alpha' },
          { old: 'alpha\nalpha', new: 'x' },
        ],
        /^invalid_request: edits\.1\.old: occurs more than once in the text \(after the edits before it\), on lines 1 and 2; /,
      ],
    ]
    for (const [edits, message] of cases) {
      const answer = await use(client, 'edit_canvas', { canvas_id: id, edits })
      expect(answer.isError).toBe(true)
      expect(answer.content[0].text).toMatch(message)
    }
    expect(await snapshot(owner.workspaceId)).toEqual(before)
    expect(await text(client, { canvas_id: id })).toBe('alpha\nbeta\nalpha\naaa\n')
  })

  it('edits a file of a site by its path, keeping every other file as it was', async () => {
    const client = await connect(owner.key)
    const png = btoa(String.fromCharCode(137, 80, 78, 71, 13, 10, 26, 10))
    const site = await ok(client, 'publish', {
      files: [
        { path: 'index.html', content: '<link rel="stylesheet" href="css/a.css"><h1>Hi</h1>' },
        { path: 'css/a.css', content: 'h1 { color: red }' },
        { path: 'img/dot.png', content_base64: png },
      ],
    })
    const id = site.canvas_id
    const v1 = await ok(client, 'get_canvas', { canvas_id: id })
    const edited = await ok(client, 'edit_canvas', {
      canvas_id: id,
      path: 'css/a.css',
      edits: [{ old: 'red', new: 'blue' }],
    })
    expect(edited).toMatchObject({ version: 2, ext: 'html', renderer_id: 'html' })
    const v2 = await ok(client, 'get_canvas', { canvas_id: id })
    expect(v2.main).toBe('index.html')
    const byPath = (detail: any) => new Map(detail.items.map((i: any) => [i.path, i]))
    const [old, now] = [byPath(v1), byPath(v2)]
    expect([...now.keys()]).toEqual([...old.keys()])
    expect(now.get('index.html')).toEqual(old.get('index.html'))
    expect(now.get('img/dot.png')).toEqual(old.get('img/dot.png'))
    expect(now.get('css/a.css')).not.toEqual(old.get('css/a.css'))
    expect((now.get('css/a.css') as any).mime).toBe((old.get('css/a.css') as any).mime)
    expect(await text(client, { canvas_id: id, path: 'css/a.css' })).toBe('h1 { color: blue }')
    expect(await text(client, { canvas_id: id, path: 'css/a.css', version: 1 })).toBe(
      'h1 { color: red }',
    )

    // No path: the main file.
    await ok(client, 'edit_canvas', { canvas_id: id, edits: [{ old: 'Hi', new: 'Hello' }] })
    expect(await text(client, { canvas_id: id })).toContain('<h1>Hello</h1>')

    const before = await snapshot(owner.workspaceId)
    const gone = await fails(
      client,
      'edit_canvas',
      { canvas_id: id, path: 'css/b.css', edits: [{ old: 'a', new: 'b' }] },
      'not_found',
    )
    expect(gone).toBe("not_found: path: version 3 has no file 'css/b.css'")
    const binary = await fails(
      client,
      'edit_canvas',
      { canvas_id: id, path: 'img/dot.png', edits: [{ old: 'PNG', new: 'GIF' }] },
      'invalid_request',
    )
    expect(binary).toBe(
      "invalid_request: path: 'img/dot.png' is binary, and only text can be edited; publish a new version instead",
    )
    await fails(
      client,
      'edit_canvas',
      { canvas_id: id, path: '../index.html', edits: [{ old: 'a', new: 'b' }] },
      'invalid_request',
    )
    expect(await snapshot(owner.workspaceId)).toEqual(before)
    expect(await versionsOf(client, id)).toEqual([3, 2, 1])
  })

  it('refuses binary content, and text past the direct upload limit, making nothing', async () => {
    const client = await connect(owner.key)
    const png = btoa(String.fromCharCode(137, 80, 78, 71, 13, 10, 26, 10, 0, 0))
    const image = await ok(client, 'publish', { content_base64: png, filename: 'dot.png' })
    const small = await connect(owner.key, { MAX_DIRECT_UPLOAD_BYTES: '100' })
    const big = await ok(client, 'publish', { content: 'x'.repeat(150), filename: 'big.txt' })
    const note = await ok(client, 'publish', { content: 'a'.repeat(90), filename: 'note.txt' })
    const before = await snapshot(owner.workspaceId)
    expect(
      await fails(
        client,
        'edit_canvas',
        { canvas_id: image.canvas_id, edits: [{ old: 'PNG', new: 'GIF' }] },
        'invalid_request',
      ),
    ).toBe(
      'invalid_request: the content is binary, and only text can be edited; publish a new version instead',
    )
    expect(
      await fails(
        small,
        'edit_canvas',
        { canvas_id: big.canvas_id, edits: [{ old: 'xx', new: 'y' }] },
        'payload_too_large',
      ),
    ).toMatch(/the content is 150 bytes, over the limit of 100/)
    expect(
      await fails(
        small,
        'edit_canvas',
        { canvas_id: note.canvas_id, edits: [{ old: 'a'.repeat(90), new: 'é'.repeat(51) }] },
        'payload_too_large',
      ),
    ).toBe('payload_too_large: edits: the edited text would be 102 bytes, over the limit of 100')
    expect(await snapshot(owner.workspaceId)).toEqual(before)
    // Exactly at the limit is allowed.
    const at = await ok(small, 'edit_canvas', {
      canvas_id: note.canvas_id,
      edits: [{ old: 'a'.repeat(90), new: 'é'.repeat(50) }],
    })
    expect(at).toMatchObject({ version: 2, size: 100 })
  })

  it('needs the write scope', async () => {
    const client = await connect(owner.key)
    const canvas = await ok(client, 'publish', { content: 'hello', filename: 'hello.txt' })
    const reader = await connect(await newKey(owner.cookie, ['read']))
    const before = await snapshot(owner.workspaceId)
    expect(
      await fails(
        reader,
        'edit_canvas',
        { canvas_id: canvas.canvas_id, edits: [{ old: 'hello', new: 'bye' }] },
        'forbidden',
      ),
    ).toBe("forbidden: this API key lacks the 'write' scope")
    expect(await snapshot(owner.workspaceId)).toEqual(before)
  })

  it('with an idempotency_key, a retry answers the first result and edits nothing twice', async () => {
    const client = await connect(owner.key)
    const canvas = await ok(client, 'publish', { content: 'count: 1', filename: 'count.txt' })
    const args = {
      canvas_id: canvas.canvas_id,
      edits: [{ old: 'count: 1', new: 'count: 2' }],
      idempotency_key: crypto.randomUUID(),
    }
    const first = await use(client, 'edit_canvas', args)
    // Run again, the edit would fail: its old text is gone. The retry gets the first answer.
    const again = await use(client, 'edit_canvas', args)
    expect(again.isError).toBeFalsy()
    expect(again.structuredContent).toEqual(first.structuredContent)
    expect((again as any)._meta).toEqual({ idempotent_replayed: true })
    expect(await versionsOf(client, canvas.canvas_id)).toEqual([2, 1])
    await fails(
      client,
      'edit_canvas',
      { ...args, edits: [{ old: 'count: 2', new: 'count: 3' }] },
      'idempotency_key_reused',
    )
    // A failure the same call would meet again is kept as well.
    const missing = { ...args, edits: [{ old: 'nope', new: 'x' }], idempotency_key: 'missing' }
    await fails(client, 'edit_canvas', missing, 'invalid_request')
    await fails(client, 'edit_canvas', missing, 'invalid_request')
    expect(await text(client, { canvas_id: canvas.canvas_id })).toBe('count: 2')
  })

  it('concurrent edits each land, in contiguous versions, none undoing another', async () => {
    const client = await connect(owner.key)
    const markers = Array.from({ length: 6 }, (_, i) => `[${i}]`)
    const canvas = await ok(client, 'publish', { content: markers.join(' '), filename: 'c.txt' })
    const answers = await Promise.all(
      markers.map((m) =>
        ok(client, 'edit_canvas', {
          canvas_id: canvas.canvas_id,
          edits: [{ old: m, new: m.replace('[', '(').replace(']', ')') }],
        }),
      ),
    )
    expect(answers.map((a) => a.version).sort()).toEqual([2, 3, 4, 5, 6, 7])
    expect(await versionsOf(client, canvas.canvas_id)).toEqual([7, 6, 5, 4, 3, 2, 1])
    expect(await text(client, { canvas_id: canvas.canvas_id })).toBe(
      markers.map((m) => m.replace('[', '(').replace(']', ')')).join(' '),
    )
  })

  it('a change based on an older version is refused with conflict', async () => {
    const client = await connect(owner.key)
    const canvas = await ok(client, 'publish', { content: 'one', filename: 'one.txt' })
    await ok(client, 'edit_canvas', {
      canvas_id: canvas.canvas_id,
      edits: [{ old: 'one', new: 'two' }],
    })
    const detail = await ok(client, 'get_canvas', { canvas_id: canvas.canvas_id })
    const svc = realServices()
    const actor = {
      workspaceId: owner.workspaceId,
      userId: owner.userId,
      role: 'owner' as const,
      person: { name: 'test', email: 'test@example.com' },
      scopes: ['read' as const, 'write' as const],
      by: { kind: 'key' as const, name: 'test' },
    }
    const items = [{ path: 'index.txt', file_id: detail.file.file_id }]
    await expect(
      updateCanvas(svc, actor, canvas.canvas_id, { items, main: 'index.txt', ifVersion: 1 }),
    ).rejects.toMatchObject({
      code: 'conflict',
      message:
        'canvas: version 2 was made meanwhile, after version 1 this change started from; try again',
    })
    expect(await versionsOf(client, canvas.canvas_id)).toEqual([2, 1])
    const made = await updateCanvas(svc, actor, canvas.canvas_id, {
      items,
      main: 'index.txt',
      ifVersion: 2,
    })
    expect(made.version).toBe(3)
  })
})

describe('edit_canvas, hostile arguments', () => {
  it('refuses malformed, empty, huge and ill-formed edits with invalid_request, changing nothing', async () => {
    const client = await connect(owner.key)
    const canvas = await ok(client, 'publish', { content: 'smile 😀 here', filename: 's.txt' })
    const id = canvas.canvas_id
    const before = await snapshot(owner.workspaceId)
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ canvas_id: id, edits: [] }, /edits: must hold at least one edit/],
      [{ canvas_id: id }, /^invalid_request: edits: /],
      [{ canvas_id: id, edits: 'smile' }, /^invalid_request: edits: /],
      [{ canvas_id: id, edits: [{ old: '', new: 'x' }] }, /edits\.0\.old: must not be empty/],
      [{ canvas_id: id, edits: [{ old: 'smile' }] }, /^invalid_request: edits\.0\.new: /],
      [{ canvas_id: id, edits: [{ old: 5, new: 'x' }] }, /^invalid_request: edits\.0\.old: /],
      [{ canvas_id: id, edits: [{ old: 'smile', new: 'x', all: true }] }, /^invalid_request: /],
      [{ canvas_id: id, edits: [null] }, /^invalid_request: edits\.0: /],
      [
        { canvas_id: id, edits: Array.from({ length: 51 }, () => ({ old: 'smile', new: 'x' })) },
        /edits: must hold at most 50 edits/,
      ],
      // Half of the emoji's surrogate pair is in the text; it must not match half a character.
      [
        { canvas_id: id, edits: [{ old: '\ud83d', new: 'x' }] },
        /edits\.0\.old: is not valid Unicode \(it holds an unpaired surrogate\)/,
      ],
      [
        { canvas_id: id, edits: [{ old: 'smile', new: 'a\udfffb' }] },
        /edits\.0\.new: is not valid Unicode/,
      ],
      [{ canvas_id: '../x', edits: [{ old: 'a', new: 'b' }] }, /^invalid_request: canvas_id: /],
      [{ canvas_id: id, path: '', edits: [{ old: 'a', new: 'b' }] }, /^invalid_request: path: /],
    ]
    for (const [args, message] of cases) {
      const answer = await use(client, 'edit_canvas', args)
      expect(answer.isError, JSON.stringify(args).slice(0, 80)).toBe(true)
      expect(answer.content[0].text).toMatch(message)
    }
    // Edits larger than a request may be: refused by the route before any tool runs.
    const huge = await call('/mcp', {
      method: 'POST',
      key: owner.key,
      headers: {
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'edit_canvas',
          arguments: {
            canvas_id: id,
            edits: [{ old: 'smile', new: 'x'.repeat(15 * 1024 * 1024) }],
          },
        },
      }),
    })
    expect(huge.status).toBe(413)
    expect(await snapshot(owner.workspaceId)).toEqual(before)
    expect(await text(client, { canvas_id: id })).toBe('smile 😀 here')
  })

  it('on any text and edits: the literal replacement when old occurs once, else an error', () => {
    const oracle = (text: string, old: string, replacement: string) => {
      const parts = text.split(old)
      return parts.length === 2 ? parts.join(replacement) : null
    }
    const wellFormed = (s: string) => !/\p{Cs}/u.test(s)
    fc.assert(
      fc.property(
        fc.oneof(wild, fc.string({ unit: 'grapheme', maxLength: 30 })),
        fc.oneof(wild, fc.constantFrom('a', 'aa', '$&', '$1', '\n')),
        wild,
        (text, old, replacement) => {
          // A text an edit reads is always well-formed (it was UTF-8).
          fc.pre(wellFormed(text))
          let result: string | null
          try {
            result = applyEdits(text, [{ old, new: replacement }])
          } catch (err) {
            expect((err as { code: string }).code).toBe('invalid_request')
            result = null
          }
          const valid = old !== '' && wellFormed(old) && wellFormed(replacement)
          const overlapping = valid && text.indexOf(old, text.indexOf(old) + 1) >= 0
          expect(result).toBe(valid && !overlapping ? oracle(text, old, replacement) : null)
        },
      ),
      { numRuns: runs(500) },
    )
  })
})
