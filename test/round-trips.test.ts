import { env } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { bytesOf, call, metaOf, newAccount, newCanvas, presignAndPut, upload } from './support/api'
import { meteredD1 } from '../src/storage/metered-d1'

// The D1 budget (issue: foundation): an authenticated read costs at most 2 round trips, a write 3.
it('keeps every route within its D1 round-trip budget', async () => {
  const account = await newAccount()
  const canvas = await newCanvas(account.key, 'budget')
  const id = canvas.canvas_id
  // Warm the key so last_used_at is fresh and its write does not run again.
  await call('/v1/me', { key: account.key })

  const measure = async (path: string, init: Parameters<typeof call>[1] = {}) => {
    const { db, meter } = meteredD1(env.DB)
    const res = await call(path, { key: account.key, ...init, env: { DB: db } })
    expect(res.status, `${init.method ?? 'GET'} ${path}`).toBeLessThan(400)
    return meter.roundTrips
  }

  const reads: Record<string, number> = {
    '/v1/me': await measure('/v1/me'),
    '/v1/renderers': await measure('/v1/renderers'),
    '/v1/usage': await measure('/v1/usage'),
    '/v1/canvases': await measure('/v1/canvases'),
    '/v1/canvases/:id': await measure(`/v1/canvases/${id}`),
    '/v1/canvases/:id/versions': await measure(`/v1/canvases/${id}/versions`),
    '/v1/canvases/:id/content': await measure(`/v1/canvases/${id}/content`),
    '/v1/canvases/:id/versions/1': await measure(`/v1/canvases/${id}/versions/1`),
  }
  for (const [route, count] of Object.entries(reads)) expect(count, route).toBeLessThanOrEqual(2)
  // The hottest reads batch the key lookup with their query.
  expect(reads['/v1/canvases/:id']).toBe(1)
  expect(reads['/v1/canvases']).toBe(1)

  const content = bytesOf('new bytes for budget')
  const meta = await metaOf(content)
  const presign = await measure('/v1/upload/presign', { method: 'POST', json: meta })
  const presigned = await (
    await call('/v1/upload/presign', { method: 'POST', key: account.key, json: meta })
  ).json<any>()
  await call(presigned.upload_url, { method: 'PUT', body: content })
  const form = new FormData()
  form.append('file', new File(['direct'], 'direct.txt'))
  const writes: Record<string, number> = {
    'POST /v1/upload/presign': presign,
    'POST /v1/upload/finalize': await measure('/v1/upload/finalize', {
      method: 'POST',
      json: meta,
    }),
    'POST /v1/canvases': await measure('/v1/canvases', {
      method: 'POST',
      json: { file_id: await upload(account.key, bytesOf('another')), title: 't', ext: 'txt' },
    }),
    'POST /v1/canvases (multipart)': await measure('/v1/canvases', { method: 'POST', body: form }),
    'PATCH /v1/canvases/:id': await measure(`/v1/canvases/${id}`, {
      method: 'PATCH',
      json: { file_id: presigned.file_id, title: 'patched' },
    }),
    'POST /v1/canvases/:id/permanent': await measure(`/v1/canvases/${id}/permanent`, {
      method: 'POST',
    }),
    'DELETE /v1/canvases/:id': await measure(`/v1/canvases/${id}`, { method: 'DELETE' }),
  }
  for (const [route, count] of Object.entries(writes)) expect(count, route).toBeLessThanOrEqual(3)
  // Presign registers its content in the key lookup's batch.
  expect(writes['POST /v1/upload/presign']).toBe(1)
  // The table in BENCHMARKS.md comes from here (`npx vitest run test/round-trips.test.ts`).
  console.log(
    ['| Route | D1 round trips |', '| --- | ---: |']
      .concat(Object.entries({ ...reads, ...writes }).map(([r, n]) => `| ${r} | ${n} |`))
      .join('\n'),
  )
})

it('share routes: private ones within budget, a public download in one round trip', async () => {
  const account = await newAccount()
  const canvas = await newCanvas(account.key, 'shared budget', { permanent: true })
  const id = canvas.canvas_id
  await call('/v1/me', { key: account.key })
  const measure = async (path: string, init: Parameters<typeof call>[1] = {}) => {
    const { db, meter } = meteredD1(env.DB)
    const res = await call(path, { ...init, env: { DB: db } })
    expect(res.status, `${init.method ?? 'GET'} ${path}`).toBeLessThan(400)
    return meter.roundTrips
  }
  const key = account.key
  const counts: Record<string, number> = {
    'POST /v1/canvases/:id/shares': await measure(`/v1/canvases/${id}/shares`, {
      method: 'POST',
      key,
      json: {},
    }),
  }
  const link = await (await call(`/v1/canvases/${id}/shares`, { method: 'POST', key })).json<any>()
  counts['GET /v1/canvases/:id/shares'] = await measure(`/v1/canvases/${id}/shares`, { key })
  counts['GET /share/:token'] = await measure(`/share/${link.token}`)
  counts['GET /share/:token/content'] = await measure(`/share/${link.token}/content`)
  counts['DELETE /v1/canvases/:id/shares/:token'] = await measure(
    `/v1/canvases/${id}/shares/${link.token}`,
    { method: 'DELETE', key },
  )
  counts['DELETE /v1/canvases/:id/shares'] = await measure(`/v1/canvases/${id}/shares`, {
    method: 'DELETE',
    key,
  })
  expect(counts['POST /v1/canvases/:id/shares']).toBeLessThanOrEqual(3)
  expect(counts['GET /v1/canvases/:id/shares']).toBeLessThanOrEqual(2)
  expect(counts['GET /share/:token']).toBe(1)
  expect(counts['GET /share/:token/content']).toBe(1)
  expect(counts['DELETE /v1/canvases/:id/shares/:token']).toBeLessThanOrEqual(3)
  expect(counts['DELETE /v1/canvases/:id/shares']).toBeLessThanOrEqual(3)
  console.log(
    Object.entries(counts)
      .map(([r, n]) => `| ${r} | ${n} |`)
      .join('\n'),
  )
})

it('Idempotency-Key adds exactly one round trip to a write; a replay costs one', async () => {
  const account = await newAccount()
  const key = account.key
  await call('/v1/me', { key })
  type Request = [path: string, init: Parameters<typeof call>[1] & {}]
  const measure = async ([path, init]: Request, idempotencyKey?: string) => {
    const { db, meter } = meteredD1(env.DB)
    const headers: Record<string, string> = idempotencyKey
      ? { 'Idempotency-Key': idempotencyKey }
      : {}
    const res = await call(path, { key, ...init, headers, env: { DB: db } })
    expect(res.status, `${init.method} ${path}`).toBeLessThan(400)
    const replayed = res.headers.get('Idempotent-Replayed') === 'true'
    return { trips: meter.roundTrips, replayed }
  }
  const unique = () => bytesOf(`budget ${crypto.randomUUID()}`)
  const canvas = async () => (await newCanvas(key, `budget ${crypto.randomUUID()}`)).canvas_id
  const form = () => {
    const data = new FormData()
    data.append('file', new File([unique()], 'direct.txt'))
    return data
  }
  // Each write is made afresh for every measure, so that all three do the same work.
  const writes: Record<string, () => Promise<Request>> = {
    'POST /v1/upload/presign': async () => [
      '/v1/upload/presign',
      { method: 'POST', json: await metaOf(unique()) },
    ],
    'POST /v1/upload/finalize': async () => [
      '/v1/upload/finalize',
      { method: 'POST', json: (await presignAndPut(key, unique())).meta },
    ],
    'POST /v1/canvases': async () => [
      '/v1/canvases',
      { method: 'POST', json: { file_id: await upload(key, unique()), title: 't', ext: 'txt' } },
    ],
    'POST /v1/canvases (multipart)': async () => ['/v1/canvases', { method: 'POST', body: form() }],
    'PATCH /v1/canvases/:id': async () => [
      `/v1/canvases/${await canvas()}`,
      { method: 'PATCH', json: { file_id: await upload(key, unique()), title: 'patched' } },
    ],
    'POST /v1/canvases/:id/permanent': async () => [
      `/v1/canvases/${await canvas()}/permanent`,
      { method: 'POST' },
    ],
    'DELETE /v1/canvases/:id': async () => [`/v1/canvases/${await canvas()}`, { method: 'DELETE' }],
    'POST /v1/canvases/:id/shares': async () => [
      `/v1/canvases/${await canvas()}/shares`,
      { method: 'POST', json: {} },
    ],
  }
  const rows: string[] = []
  for (const [route, make] of Object.entries(writes)) {
    const plain = await measure(await make())
    const request = await make()
    const idempotencyKey = `budget-${crypto.randomUUID()}`
    const keyed = await measure(request, idempotencyKey)
    const replay = await measure(request, idempotencyKey)
    expect([keyed.replayed, replay.replayed], route).toEqual([false, true])
    // Presign without the header registers its content in the key lookup's batch, where the
    // claim goes with it: then it takes a batch of its own, as every write does behind the claim.
    expect(keyed.trips - plain.trips, route).toBe(route === 'POST /v1/upload/presign' ? 2 : 1)
    expect(replay.trips, route).toBe(1)
    rows.push(`| ${route} | ${plain.trips} | ${keyed.trips} | ${replay.trips} |`)
  }
  console.log(
    ['| Route | without | with Idempotency-Key | replayed |', '| --- | ---: | ---: | ---: |']
      .concat(rows)
      .join('\n'),
  )
})

it('the meter counts: a batch is one round trip, two statements are two, rows as D1 reports', async () => {
  const { db, meter } = meteredD1(env.DB)
  await db.prepare('SELECT 1').first()
  await db.batch([db.prepare('SELECT 1'), db.prepare('SELECT 2')])
  expect(meter).toMatchObject({ roundTrips: 2, statements: 3 })
  await db.exec('CREATE TABLE IF NOT EXISTS meter_probe (n INTEGER)')
  const before = { ...meter }
  await db.prepare('INSERT INTO meter_probe (n) VALUES (1), (2), (3)').run()
  await db.prepare('SELECT * FROM meter_probe').all()
  expect(meter.roundTrips - before.roundTrips).toBe(2)
  expect(meter.rowsWritten - before.rowsWritten).toBe(3)
  expect(meter.rowsRead - before.rowsRead).toBeGreaterThanOrEqual(3)
})
