import { env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { bytesOf, call, errorOf, json, newAccount, newCanvas, upload } from './support/api'
import { sweepUntilDone } from './support/state'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

describe('create', () => {
  it('creates a temporary private canvas at version 1 from a finalized file', async () => {
    const account = await newAccount()
    const fileId = await upload(account.key, bytesOf('<h1>hi</h1>'), 'html', 'text/html')
    const before = Date.now()
    const res = await call('/v1/canvases', {
      method: 'POST',
      key: account.key,
      json: { file_id: fileId, title: 'Report', ext: 'html' },
    })
    expect(res.status).toBe(201)
    const canvas = await json(res)
    expect(canvas).toEqual({
      canvas_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
      owner_user_id: account.userId,
      author: { user_id: account.userId, name: account.email.split('@')[0] },
      title: 'Report',
      ext: 'html',
      renderer_id: 'html',
      visibility: 'private',
      version: 1,
      size: 11,
      created_at: expect.stringMatching(ISO),
      updated_at: canvas.created_at,
      expires_at: expect.stringMatching(ISO),
      approved_version: null,
    })
    const ttl = Date.parse(canvas.expires_at) - Date.parse(canvas.created_at)
    expect(ttl).toBe(86400 * 1000)
    expect(Date.parse(canvas.created_at)).toBeGreaterThanOrEqual(before - 1000)
    const version = await env.DB.prepare('SELECT * FROM versions WHERE canvas_id = ?')
      .bind(canvas.canvas_id)
      .all<any>()
    expect(version.results).toEqual([
      {
        canvas_id: canvas.canvas_id,
        version: 1,
        file_id: fileId,
        size: 11,
        created_at: Date.parse(canvas.created_at),
        main_path: 'index.html',
        item_count: 1,
        workspace_id: account.workspaceId,
      },
    ])
    // One file is a version of one item, `index.<ext>`.
    const items = await env.DB.prepare(
      'SELECT path, file_id FROM version_items WHERE canvas_id = ?',
    )
      .bind(canvas.canvas_id)
      .all<any>()
    expect(items.results).toEqual([{ path: 'index.html', file_id: fileId }])
  })

  it('permanent: true has no expiry; renderer_id can be chosen', async () => {
    const account = await newAccount()
    const fileId = await upload(account.key, bytesOf('# md'), 'md', 'text/markdown')
    const res = await call('/v1/canvases', {
      method: 'POST',
      key: account.key,
      json: { file_id: fileId, title: 'Notes', ext: 'md', permanent: true, renderer_id: 'text' },
    })
    const canvas = await json(res)
    expect(canvas.expires_at).toBeNull()
    expect(canvas.renderer_id).toBe('text')
  })

  it('default renderer follows the extension, then the file type', async () => {
    const account = await newAccount()
    const cases: [string, string, string][] = [
      ['py', 'text/x-python', 'code'],
      ['csv', 'text/csv', 'csv'],
      ['svg', 'image/svg+xml', 'image'],
      ['weird', 'text/plain', 'text'],
      ['dat', 'application/octet-stream', 'download'],
    ]
    for (const [ext, mime, renderer] of cases) {
      const fileId = await upload(account.key, bytesOf(`content ${ext}`), ext, mime)
      const canvas = await json(
        await call('/v1/canvases', {
          method: 'POST',
          key: account.key,
          json: { file_id: fileId, title: ext, ext },
        }),
      )
      expect(canvas.renderer_id).toBe(renderer)
    }
  })

  it('creates from a multipart upload in one request', async () => {
    const account = await newAccount()
    const form = new FormData()
    form.append('file', new File(['a,b\n1,2\n'], 'Data.CSV', { type: 'text/csv' }))
    form.append('permanent', 'true')
    const res = await call('/v1/canvases', { method: 'POST', key: account.key, body: form })
    expect(res.status).toBe(201)
    const canvas = await json(res)
    expect(canvas).toMatchObject({
      title: 'Data.CSV',
      ext: 'csv',
      renderer_id: 'csv',
      version: 1,
      size: 8,
      expires_at: null,
    })
    const file = await env.DB.prepare(
      `SELECT f.* FROM versions v JOIN files f ON f.file_id = v.file_id WHERE v.canvas_id = ?`,
    )
      .bind(canvas.canvas_id)
      .first<any>()
    expect(file.status).toBe('ready')
    expect(await (await env.BUCKET.get(file.blob_key))!.text()).toBe('a,b\n1,2\n')
  })

  it('multipart: ext from content when the name has none; fields override', async () => {
    const account = await newAccount()
    const text = new FormData()
    text.append('file', new File(['plain words'], 'README'))
    expect(
      (await json(await call('/v1/canvases', { method: 'POST', key: account.key, body: text })))
        .ext,
    ).toBe('txt')
    const binary = new FormData()
    binary.append('file', new File([new Uint8Array([0, 159, 146, 150])], 'blob'))
    expect(
      (await json(await call('/v1/canvases', { method: 'POST', key: account.key, body: binary })))
        .ext,
    ).toBe('bin')
    const named = new FormData()
    named.append('file', new File(['x'], 'a.txt'))
    named.append('title', 'Chosen')
    named.append('ext', 'md')
    const canvas = await json(
      await call('/v1/canvases', { method: 'POST', key: account.key, body: named }),
    )
    expect(canvas).toMatchObject({ title: 'Chosen', ext: 'md', renderer_id: 'markdown' })
  })

  it('multipart: bad fields are refused before the file is stored', async () => {
    const account = await newAccount()
    const form = new FormData()
    form.append('file', new File(['stored too early?'], 'a.txt'))
    form.append('title', 'x'.repeat(300))
    const res = await call('/v1/canvases', { method: 'POST', key: account.key, body: form })
    expect(res.status).toBe(400)
    expect(await json(res)).toEqual(
      errorOf('invalid_request', 'title: must be at most 200 characters'),
    )
    const files = await env.DB.prepare('SELECT COUNT(*) AS n FROM files WHERE workspace_id = ?')
      .bind(account.workspaceId)
      .first<any>()
    expect(files.n).toBe(0)
  })

  it('multipart: a text field that is not UTF-8 is refused, as a JSON body is; U+FFFD sent is kept', async () => {
    const account = await newAccount()
    const boundary = 'b0undary'
    const body = (title: Uint8Array) =>
      new Uint8Array([
        ...bytesOf(`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n`),
        ...title,
        ...bytesOf(
          `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n` +
            `Content-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`,
        ),
      ])
    const send = (title: Uint8Array) =>
      call('/v1/canvases', {
        method: 'POST',
        key: account.key,
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body: body(title),
      })
    const latin1 = await send(new Uint8Array([0x52, 0xe9, 0x73, 0x75, 0x6d, 0xe9])) // "Résumé" in Latin-1
    expect(latin1.status).toBe(400)
    expect(await json(latin1)).toEqual(
      errorOf('invalid_request', 'title: must be valid UTF-8 text'),
    )
    const files = await env.DB.prepare('SELECT COUNT(*) AS n FROM files WHERE workspace_id = ?')
      .bind(account.workspaceId)
      .first<any>()
    expect(files.n).toBe(0)
    // A field no create or update could hold is refused before its bytes are looked for.
    const huge = await send(bytesOf('x'.repeat(5000)))
    expect(await json(huge)).toEqual(
      errorOf('invalid_request', 'title: must be at most 4096 characters'),
    )
    const meant = await send(bytesOf('Broken \ufffd glyph'))
    expect(meant.status).toBe(201)
    expect((await json(meant)).title).toBe('Broken \ufffd glyph')
  })

  it('413 for a direct upload above MAX_DIRECT_UPLOAD_BYTES, nothing stored', async () => {
    const account = await newAccount()
    const form = new FormData()
    form.append('file', new File([new Uint8Array(2048)], 'big.bin'))
    const res = await call('/v1/canvases', {
      method: 'POST',
      key: account.key,
      body: form,
      env: { MAX_DIRECT_UPLOAD_BYTES: '1024' },
    })
    expect(res.status).toBe(413)
    expect(await json(res)).toEqual(
      errorOf(
        'payload_too_large',
        'direct uploads are limited to 1024 bytes; use the presigned flow (POST /v1/upload/presign)',
      ),
    )
    expect(
      await env.DB.prepare('SELECT 1 FROM files WHERE workspace_id = ?')
        .bind(account.workspaceId)
        .first(),
    ).toBeNull()
  })

  it('refuses unknown, unfinalized and foreign files and bad fields', async () => {
    const account = await newAccount()
    const other = await newAccount()
    const theirs = await upload(other.key, bytesOf('not yours'))
    const pending = await json(
      await call('/v1/upload/presign', {
        method: 'POST',
        key: account.key,
        json: { sha256: 'f'.repeat(64), ext: 'txt', size: 1, mime: 'text/plain' },
      }),
    )
    const fileId = await upload(account.key, bytesOf('mine'))
    const cases: [unknown, number, string, string][] = [
      [{ file_id: 'nope', title: 't', ext: 'txt' }, 404, 'file_not_found', 'file_id: no such file'],
      [{ file_id: theirs, title: 't', ext: 'txt' }, 404, 'file_not_found', 'file_id: no such file'],
      [
        { file_id: pending.file_id, title: 't', ext: 'txt' },
        400,
        'upload_incomplete',
        'file_id: the upload has not been finalized',
      ],
      [
        { file_id: fileId, title: '', ext: 'txt' },
        400,
        'invalid_request',
        'title: must not be empty',
      ],
      [
        { file_id: fileId, title: 'x'.repeat(201), ext: 'txt' },
        400,
        'invalid_request',
        'title: must be at most 200 characters',
      ],
      [
        { file_id: fileId, title: 'a\nb', ext: 'txt' },
        400,
        'invalid_request',
        'title: must not contain control characters',
      ],
      [
        // Half a UTF-16 pair: D1 would store three U+FFFD for it, past the 200-character limit.
        { file_id: fileId, title: 'x'.repeat(197) + '\ud800y', ext: 'txt' },
        400,
        'invalid_request',
        'title: must not contain unpaired surrogates (half of a character)',
      ],
      [
        { file_id: fileId, title: 'x\udc00', ext: 'txt' },
        400,
        'invalid_request',
        'title: must not contain unpaired surrogates (half of a character)',
      ],
      [
        { file_id: fileId, title: 't', ext: '.txt' },
        400,
        'invalid_request',
        'ext: must be 1 to 16 lowercase letters or digits, without the dot',
      ],
      [
        { file_id: fileId, title: 't', ext: 'txt', renderer_id: 'flash' },
        400,
        'invalid_request',
        "renderer_id: unknown renderer 'flash'; see GET /v1/renderers",
      ],
      [
        { file_id: fileId, title: 't', ext: 'txt', permanent: 'yes' },
        400,
        'invalid_request',
        'permanent: Invalid input: expected boolean, received string',
      ],
      [
        { title: 't', ext: 'txt' },
        400,
        'invalid_request',
        'file_id: a canvas needs file_id or items',
      ],
    ]
    for (const [body, status, code, message] of cases) {
      const res = await call('/v1/canvases', { method: 'POST', key: account.key, json: body })
      expect(res.status).toBe(status)
      expect(await json(res)).toEqual(errorOf(code, message))
    }
    const count = await env.DB.prepare('SELECT COUNT(*) AS n FROM canvases WHERE workspace_id = ?')
      .bind(account.workspaceId)
      .first<any>()
    expect(count.n).toBe(0)
  })
})

describe('list', () => {
  it('lists newest first with filters and paging', async () => {
    const account = await newAccount()
    const a = await newCanvas(account.key, 'one', { ext: 'txt' })
    const b = await newCanvas(account.key, 'two', { ext: 'md', mime: 'text/markdown' })
    const c = await newCanvas(account.key, 'three', { ext: 'txt' })
    await call(`/v1/canvases/${b.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { visibility: 'public' },
    })
    const list = async (query: string) =>
      json(await call(`/v1/canvases${query}`, { key: account.key }))

    const all = await list('')
    expect(all.limit).toBe(20)
    expect(all.offset).toBe(0)
    expect(all.canvases.map((x: any) => x.canvas_id)).toEqual([
      c.canvas_id,
      b.canvas_id,
      a.canvas_id,
    ])
    expect(all.canvases[0]).toEqual(c)
    expect((await list('?ext=txt')).canvases.map((x: any) => x.canvas_id)).toEqual([
      c.canvas_id,
      a.canvas_id,
    ])
    expect((await list('?visibility=public')).canvases.map((x: any) => x.canvas_id)).toEqual([
      b.canvas_id,
    ])
    const page = await list('?limit=1&offset=1')
    expect(page).toEqual({
      canvases: [expect.objectContaining({ canvas_id: b.canvas_id })],
      limit: 1,
      offset: 1,
      next_cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
    })
    // Another workspace sees none of them.
    const other = await newAccount()
    expect((await json(await call('/v1/canvases', { key: other.key }))).canvases).toEqual([])
  })

  it('rejects bad limit, offset and filters', async () => {
    const account = await newAccount()
    const cases: [string, string][] = [
      ['?limit=0', 'limit: must be at least 1'],
      ['?limit=101', 'limit: must be at most 100'],
      ['?limit=abc', 'limit: must be a whole number'],
      ['?offset=-1', 'offset: must be a whole number'],
      ['?visibility=secret', 'visibility: must be private or public'],
      ['?ext=.txt', 'ext: must be 1 to 16 lowercase letters or digits, without the dot'],
    ]
    for (const [query, message] of cases) {
      const res = await call(`/v1/canvases${query}`, { key: account.key })
      expect(res.status).toBe(400)
      expect(await json(res)).toEqual(errorOf('invalid_request', message))
    }
  })
})

describe('get', () => {
  it('includes the current file and renderer', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'get me')
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, { key: account.key })
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body).toEqual({
      ...canvas,
      file: {
        file_id: expect.any(String),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        size: 6,
        mime: 'text/plain',
      },
      renderer: { renderer_id: 'text', name: 'Plain text' },
    })
  })

  it('another workspace, an unknown id and an expired canvas are all canvas_not_found', async () => {
    const account = await newAccount()
    const other = await newAccount()
    const canvas = await newCanvas(account.key)
    const expired = await newCanvas(account.key, 'old')
    await env.DB.prepare('UPDATE canvases SET expires_at = ? WHERE canvas_id = ?')
      .bind(Date.now() - 1, expired.canvas_id)
      .run()
    const cases: [string, string][] = [
      [other.key, canvas.canvas_id],
      [account.key, 'unknown'],
      [account.key, 'bad%20id'],
      [account.key, expired.canvas_id],
    ]
    for (const [key, id] of cases) {
      for (const path of [``, `/versions`, `/content`, `/versions/1`]) {
        const res = await call(`/v1/canvases/${id}${path}`, { key })
        expect(res.status).toBe(404)
        expect(await json(res)).toEqual(errorOf('canvas_not_found', 'canvas not found'))
      }
      for (const [method, path, body] of [
        ['PATCH', '', { title: 'x' }],
        ['DELETE', '', undefined],
        ['POST', '/permanent', undefined],
      ] as const) {
        const res = await call(`/v1/canvases/${id}${path}`, { method, key, json: body })
        expect(res.status).toBe(404)
        expect(await json(res)).toEqual(errorOf('canvas_not_found', 'canvas not found'))
      }
    }
    // Nothing changed for the owner.
    expect(
      (await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: account.key }))).title,
    ).toBe('A canvas')
  })
})

describe('update', () => {
  it('changes metadata without a new version', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key)
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { title: 'Renamed', visibility: 'public', renderer_id: 'code' },
    })
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body).toEqual({
      ...canvas,
      title: 'Renamed',
      visibility: 'public',
      renderer_id: 'code',
      updated_at: expect.stringMatching(ISO),
    })
    const versions = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/versions`, { key: account.key }),
    )
    expect(versions.versions).toHaveLength(1)
  })

  it('a new file makes a new version; older versions stay', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'v1 text')
    const v2 = await upload(account.key, bytesOf('version two!'))
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: v2 },
    })
    expect(res.status).toBe(200)
    expect(await json(res)).toMatchObject({ canvas_id: canvas.canvas_id, version: 2, size: 12 })
    // Same bytes again still make a version (docs/api.md).
    const again = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: v2 },
    })
    expect((await json(again)).version).toBe(3)
    const versions = await json(
      await call(`/v1/canvases/${canvas.canvas_id}/versions`, { key: account.key }),
    )
    expect(versions).toEqual({
      versions: [
        {
          version: 3,
          size: 12,
          sha256: expect.any(String),
          created_at: expect.stringMatching(ISO),
          items: 1,
        },
        {
          version: 2,
          size: 12,
          sha256: expect.any(String),
          created_at: expect.stringMatching(ISO),
          items: 1,
        },
        {
          version: 1,
          size: 7,
          sha256: expect.any(String),
          created_at: expect.stringMatching(ISO),
          items: 1,
        },
      ],
    })
  })

  it('a version of another type changes ext and renderer; each version keeps its own', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, '<h1>Report</h1>', {
      ext: 'html',
      mime: 'text/html',
    })
    expect(canvas).toMatchObject({ ext: 'html', renderer_id: 'html' })
    const notes = await upload(account.key, bytesOf('# Notes\n\n- one'), 'md', 'text/markdown')
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: notes, ext: 'md' },
    })
    expect(res.status).toBe(200)
    expect(await json(res)).toMatchObject({ version: 2, ext: 'md', renderer_id: 'markdown' })
    // Without ext a new file keeps the canvas's type, as before.
    const plain = await upload(account.key, bytesOf('# Still Markdown'), 'md', 'text/markdown')
    const kept = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: plain },
    })
    expect(await json(kept)).toMatchObject({ version: 3, ext: 'md', renderer_id: 'markdown' })
    // Version 1 is still HTML: its own download is named and typed so.
    const v1 = await call(`/v1/canvases/${canvas.canvas_id}/versions/1/items`, {
      key: account.key,
    })
    expect(await json(v1)).toMatchObject({ main: 'index.html' })
    const v2 = await call(`/v1/canvases/${canvas.canvas_id}/versions/2/items`, {
      key: account.key,
    })
    expect(await json(v2)).toMatchObject({ main: 'index.md' })
  })

  it('multipart update with a file part', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key)
    const form = new FormData()
    form.append('file', new File(['new content'], 'x.txt'))
    form.append('title', 'Via form')
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      body: form,
    })
    expect(res.status).toBe(200)
    expect(await json(res)).toMatchObject({ version: 2, title: 'Via form', size: 11 })
  })

  it('refuses an empty update, bad fields and a bad file, changing nothing', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key)
    const cases: [unknown, number, string, string][] = [
      [
        {},
        400,
        'invalid_request',
        'an update needs at least one of file_id, items, title, visibility, renderer_id',
      ],
      [{ visibility: 'hidden' }, 400, 'invalid_request', 'visibility: must be private or public'],
      [{ ext: 'md' }, 400, 'invalid_request', 'ext: only goes with new content (file_id or items)'],
      [{ file_id: 'missing', title: 'x' }, 404, 'file_not_found', 'file_id: no such file'],
    ]
    for (const [body, status, code, message] of cases) {
      const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
        method: 'PATCH',
        key: account.key,
        json: body,
      })
      expect(res.status).toBe(status)
      expect(await json(res)).toEqual(errorOf(code, message))
    }
    expect(
      await json(await call(`/v1/canvases/${canvas.canvas_id}`, { key: account.key })),
    ).toMatchObject({
      title: 'A canvas',
      version: 1,
    })
  })

  it('50 concurrent content updates give versions 2..51 without gaps', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key)
    const fileId = await upload(account.key, bytesOf('concurrent'))
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(`/v1/canvases/${canvas.canvas_id}`, {
          method: 'PATCH',
          key: account.key,
          json: { file_id: fileId },
        }),
      ),
    )
    const versions = await Promise.all(results.map(async (r) => (await json(r)).version))
    expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2))
    const rows = await env.DB.prepare(
      'SELECT version FROM versions WHERE canvas_id = ? ORDER BY version',
    )
      .bind(canvas.canvas_id)
      .all<any>()
    expect(rows.results.map((r) => r.version)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1))
  })
})

describe('delete and permanent', () => {
  it('delete takes the canvas from every read at once; the sweep then removes its rows', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'to delete', { permanent: true })
    await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      key: account.key,
      json: { file_id: await upload(account.key, bytesOf('v2')) },
    })
    const res = await call(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'DELETE',
      key: account.key,
    })
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({ success: true })
    for (const path of ['', '/versions', '/content', '/versions/1', '/versions/1/items']) {
      const read = await call(`/v1/canvases/${canvas.canvas_id}${path}`, { key: account.key })
      expect(read.status, path).toBe(404)
    }
    const listed = await json(await call('/v1/canvases', { key: account.key }))
    expect(listed.canvases).toEqual([])
    for (const [method, path] of [
      ['DELETE', ''],
      ['POST', '/permanent'],
    ]) {
      const again = await call(`/v1/canvases/${canvas.canvas_id}${path}`, {
        method,
        key: account.key,
      })
      expect(again.status, `${method} ${path}`).toBe(404)
    }
    const versionsOf = () =>
      env.DB.prepare('SELECT count(*) AS n FROM versions WHERE canvas_id = ?')
        .bind(canvas.canvas_id)
        .first('n')
    expect(await versionsOf()).toBe(2)
    await sweepUntilDone(Date.now())
    expect(await versionsOf()).toBe(0)
    expect(
      await env.DB.prepare('SELECT 1 FROM canvases WHERE canvas_id = ?')
        .bind(canvas.canvas_id)
        .first(),
    ).toBeNull()
  })

  it('make permanent clears expires_at and is idempotent', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key)
    expect(canvas.expires_at).not.toBeNull()
    for (let i = 0; i < 2; i++) {
      const res = await call(`/v1/canvases/${canvas.canvas_id}/permanent`, {
        method: 'POST',
        key: account.key,
      })
      expect(res.status).toBe(200)
      expect(await json(res)).toMatchObject({ canvas_id: canvas.canvas_id, expires_at: null })
    }
  })

  it('TEMP_CANVAS_TTL sets the lifetime; an expired canvas is gone at once', async () => {
    const account = await newAccount()
    const fileId = await upload(account.key, bytesOf('short-lived'))
    const canvas = await json(
      await call('/v1/canvases', {
        method: 'POST',
        key: account.key,
        json: { file_id: fileId, title: 'brief', ext: 'txt' },
        env: { TEMP_CANVAS_TTL: '1' },
      }),
    )
    expect(Date.parse(canvas.expires_at) - Date.parse(canvas.created_at)).toBe(1000)
    // The clock passing its expiry, however slow the machine: the condition is the time itself.
    const expiry = Date.parse(canvas.expires_at)
    await vi.waitUntil(() => Date.now() > expiry, { timeout: 10_000, interval: 20 })
    expect((await call(`/v1/canvases/${canvas.canvas_id}`, { key: account.key })).status).toBe(404)
    const list = await json(await call('/v1/canvases', { key: account.key }))
    expect(list.canvases).toEqual([])
    // Too late to save it.
    expect(
      (
        await call(`/v1/canvases/${canvas.canvas_id}/permanent`, {
          method: 'POST',
          key: account.key,
        })
      ).status,
    ).toBe(404)
  })
})
