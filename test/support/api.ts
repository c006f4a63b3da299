import { expect } from 'vitest'
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import worker from '../../src/index'
import { createAccount } from '../../src/domain/users'
import { hashPassword } from '../../src/lib/crypto'
import type { Bindings } from '../../src/lib/settings'
import { realServices } from './state'

export const ORIGIN = 'http://canvas.test'

/** The SETUP_TOKEN of the test configuration: a file's first signup needs it. */
export const SETUP_TOKEN = 'test-setup-token-0123456789abcdef0123456789'

type CallInit = RequestInit & {
  key?: string
  cookie?: string
  json?: unknown
  env?: Partial<Bindings>
  ip?: string
}

/**
 * Sends a request through the Worker's own fetch handler with the real D1 and R2 bindings, waiting
 * for work it left running after the response. `env` overrides bindings for one request.
 */
export async function call(path: string, init: CallInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  if (init.key) headers.set('Authorization', `Bearer ${init.key}`)
  if (init.cookie) headers.set('Cookie', init.cookie)
  if (init.ip) headers.set('CF-Connecting-IP', init.ip)
  let body = init.body
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json')
    body = JSON.stringify(init.json)
  }
  // As an HTTP client would: the storage route, like S3, needs the length up front.
  if (body instanceof Uint8Array) headers.set('Content-Length', String(body.byteLength))
  const url = path.startsWith('http') ? path : ORIGIN + path
  const request = new Request(url, { ...init, headers, body, redirect: 'manual' })
  const ctx = createExecutionContext()
  const response = await worker.fetch(request, { ...env, ...init.env } as Bindings, ctx)
  await waitOnExecutionContext(ctx)
  return response
}

export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T
}

let counter = 0

export type Account = {
  email: string
  password: string
  cookie: string
  key: string
  userId: string
  workspaceId: string
}

const PASSWORD = 'correct horse battery'
// Hashed once per runtime, not for each of the hundreds of accounts the tests make: 100,000 rounds
// of PBKDF2 each were a share of the suite's CPU worth saving (BENCHMARKS.md, npm test in CPU
// seconds). Signing up through the route is tested in auth.test.ts and signup-first.test.ts.
let passwordHash: Promise<string> | undefined

/**
 * A fresh user with a session cookie and a read+write API key: the account made as signup makes
 * it (the domain's own statements, the deployment's rules), the key through the web session.
 */
export async function newAccount(): Promise<Account> {
  const email = `user${++counter}-${crypto.randomUUID().slice(0, 8)}@example.com`
  passwordHash ??= hashPassword(PASSWORD)
  const { account, sessionToken } = await createAccount(
    realServices(),
    { email, passwordHash: await passwordHash },
    { token: SETUP_TOKEN, local: false },
  )
  const cookie = `canvas_session=${sessionToken}`
  const key = await newKey(cookie)
  return {
    email,
    password: PASSWORD,
    cookie,
    key,
    userId: account.user.user_id,
    workspaceId: account.workspace.workspace_id,
  }
}

export async function newKey(cookie: string, scopes?: string[]): Promise<string> {
  const res = await call('/auth/keys', {
    method: 'POST',
    cookie,
    json: { name: 'test key', ...(scopes ? { scopes } : {}) },
  })
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`)
  return (await json(res)).key
}

export function sessionCookie(res: Response): string {
  const header = res.headers.get('Set-Cookie') ?? ''
  const match = /canvas_session=([^;]*)/.exec(header)
  if (!match) throw new Error(`no session cookie in: ${header}`)
  return `canvas_session=${match[1]}`
}

export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes)
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

export const bytesOf = (text: string) => new TextEncoder().encode(text)

/** The body of presign and finalize for these bytes. */
export async function metaOf(content: Uint8Array, ext = 'txt', mime = 'text/plain') {
  return { sha256: await sha256(content), ext, size: content.byteLength, mime }
}

/** Presign, and PUT unless the workspace has the bytes: an upload not yet finalized. */
export async function presignAndPut(
  key: string,
  content: Uint8Array,
  ext = 'txt',
  mime = 'text/plain',
) {
  const meta = await metaOf(content, ext, mime)
  const presign = await json(await call('/v1/upload/presign', { method: 'POST', key, json: meta }))
  if (!presign.exists) {
    const put = await call(presign.upload_url, { method: 'PUT', body: content })
    if (put.status !== 200) throw new Error(`PUT failed: ${put.status} ${await put.text()}`)
  }
  return { meta, presign }
}

/** The presigned flow: presign, PUT when needed, finalize. Returns the file id. */
export async function upload(key: string, content: Uint8Array, ext = 'txt', mime = 'text/plain') {
  const { meta } = await presignAndPut(key, content, ext, mime)
  const fin = await call('/v1/upload/finalize', { method: 'POST', key, json: meta })
  if (fin.status !== 200) throw new Error(`finalize failed: ${fin.status} ${await fin.text()}`)
  return (await json(fin)).file.file_id as string
}

/**
 * A canvas of `text`, made in one request (multipart/form-data): the presigned flow that `upload`
 * takes costs four, and the tests of that flow use `upload` themselves.
 */
export async function newCanvas(
  key: string,
  text = 'hello canvas',
  options: { ext?: string; title?: string; permanent?: boolean; mime?: string } = {},
) {
  const ext = options.ext ?? 'txt'
  const body = new FormData()
  body.append('file', new File([text], `upload.${ext}`, { type: options.mime ?? 'text/plain' }))
  body.append('title', options.title ?? 'A canvas')
  body.append('ext', ext)
  if (options.permanent !== undefined) body.append('permanent', String(options.permanent))
  const res = await call('/v1/canvases', { method: 'POST', key, body })
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`)
  return json(res)
}

/** Follows a 302 to the signed URL and returns the content response. */
export async function follow(res: Response): Promise<Response> {
  const location = res.headers.get('Location')
  if (res.status !== 302 || !location) throw new Error(`expected a redirect, got ${res.status}`)
  return call(location)
}

/** Every error body carries the request's id: cf-ray when Cloudflare sent one, else random. */
export const REQUEST_ID = expect.stringMatching(/^[\w-]{1,64}$/)

/** A whole error body; a RegExp message matches loosely, a string exactly. */
export function errorOf(code: string, message: string | RegExp) {
  return {
    error: {
      code,
      message: typeof message === 'string' ? message : expect.stringMatching(message),
      request_id: REQUEST_ID,
    },
  }
}

/** A form post as the web app's pages send it. */
export function formPost(fields: Record<string, string>) {
  return {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  }
}

/** The CSRF token the session's own pages put in their forms. */
export async function csrfOf(cookie: string): Promise<string> {
  const page = await (await call('/settings', { cookie })).text()
  return /name="_csrf" value="([0-9a-f]{32})"/.exec(page)![1]
}

/**
 * A share page as a person's browser opens it: the Open button of a link with a view limit is
 * pressed, and a redirect that sets the view cookie is followed with it.
 */
export async function browse(path: string, init: CallInit = {}): Promise<Response> {
  let res = await call(path, init)
  const url = new URL(path, ORIGIN)
  if (res.status === 200 && /^\/s\//.test(url.pathname)) {
    const page = await res.clone().text()
    if (page.includes('name="open"')) res = await call(path, formPost({ open: '1' }))
  }
  if (res.status !== 303) return res
  const cookie = /canvas_view=[^;]*/.exec(res.headers.get('Set-Cookie') ?? '')?.[0]
  return call(res.headers.get('Location')!, {
    cookie: [init.cookie, cookie].filter(Boolean).join('; '),
  })
}

/** The account's session cookie with the message a form's action left for the next page. */
export function withFlash(account: { cookie: string }, res: Response) {
  const flash = /canvas_flash=[^;]*/.exec(res.headers.get('Set-Cookie') ?? '')?.[0]
  return flash ? `${account.cookie}; ${flash}` : account.cookie
}
