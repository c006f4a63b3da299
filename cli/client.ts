import { STATUS_CODES, type IncomingMessage } from 'node:http'
import { BOOKMARK_HEADER, newerBookmark, saveBookmark, storedBookmark } from './bookmark'
import { CliError } from './errors'
import { readText, send } from './http'
import { log } from './log'
import { note } from './output'

// HTTP to the Canvas API: every request is logged (method, path, status, ms; never secrets), and
// every failure becomes a CliError carrying the server's own code.

export type RequestOptions = {
  method?: string
  json?: unknown
  query?: Record<string, string | number | undefined>
  headers?: Record<string, string>
  auth?: boolean
}

/** An answer read whole (API answers are small); redirects are never followed. */
type Answer = { status: number; location?: string; text: string }

// The service allows each key so many requests a minute and answers 429 with Retry-After past
// that (a first push of a large folder makes two requests a file): the client waits and goes on,
// a few times, rather than fail half-way. A wait longer than this is not waited for.
const MAX_ATTEMPTS = 5
const MAX_WAIT_S = 300
const DEFAULT_WAIT_S = 5

export class Api {
  /** When requests may go out again after a 429; shared by all requests in flight. */
  private resumeAt = 0
  /** The newest database bookmark the service gave (cli/bookmark.ts), sent back on every request. */
  private bookmark: string | undefined
  private saving = false

  constructor(
    readonly endpoint: string,
    private readonly apiKey?: string,
  ) {
    this.bookmark = storedBookmark(endpoint)
  }

  async request<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
    const answer = await this.exchange(path, options)
    try {
      return JSON.parse(answer.text) as T
    } catch {
      throw new CliError(
        `unexpected answer from ${this.endpoint} (HTTP ${answer.status})`,
        'bad_response',
      )
    }
  }

  /** A route that answers 302 to a signed URL: returns that URL without following it. */
  async location(path: string, options: RequestOptions = {}): Promise<string> {
    const answer = await this.exchange(path, options)
    if (answer.status !== 302 || !answer.location) {
      throw new CliError(
        `expected a redirect from ${path}, got HTTP ${answer.status}`,
        'bad_response',
      )
    }
    return new URL(answer.location, this.endpoint).toString()
  }

  /** A route whose answer is content (an archive): its response, unread, once it is a success. */
  async stream(path: string, options: RequestOptions = {}): Promise<IncomingMessage> {
    const response = await this.respond(path, options)
    const status = response.statusCode ?? 0
    if (status >= 300) throw errorFrom(status, await readText(response))
    return response
  }

  private async exchange(path: string, options: RequestOptions): Promise<Answer> {
    const response = await this.respond(path, options)
    const status = response.statusCode ?? 0
    let text: string
    try {
      text = await readText(response)
    } catch (err) {
      throw new CliError(`cannot reach ${this.endpoint}: ${causeOf(err)}`, 'network_error')
    }
    if (status >= 400) throw errorFrom(status, text)
    return { status, location: response.headers.location, text }
  }

  /** Sends the request, again after a 429 once the wait the service asks for is over. */
  private async respond(path: string, options: RequestOptions): Promise<IncomingMessage> {
    for (let attempt = 1; ; attempt++) {
      const wait = this.resumeAt - Date.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const response = await this.send(path, options)
      if (response.statusCode !== 429 || attempt === MAX_ATTEMPTS) return response
      const seconds = retryAfter(response.headers['retry-after'])
      if (seconds > MAX_WAIT_S) return response
      response.resume()
      this.pause(seconds)
    }
  }

  private pause(seconds: number) {
    const until = Date.now() + seconds * 1000
    // Requests in flight together meet the same limit: one note for them all.
    if (until > this.resumeAt + 1000) {
      log('WARN', 'rate limited', { wait_s: seconds })
      note(`rate limited by ${this.endpoint}: waiting ${seconds} s, then going on`)
    }
    this.resumeAt = Math.max(this.resumeAt, until)
  }

  private async send(path: string, options: RequestOptions): Promise<IncomingMessage> {
    const method = options.method ?? 'GET'
    const url = new URL(this.endpoint + path)
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    const headers: Record<string, string> = { ...options.headers }
    if (this.bookmark) headers[BOOKMARK_HEADER] = this.bookmark
    if (options.auth !== false) {
      if (!this.apiKey)
        throw new CliError('not logged in: run `svc login` or set CANVAS_API_KEY', 'unauthorized')
      headers.Authorization = `Bearer ${this.apiKey}`
    }
    const body = options.json === undefined ? undefined : JSON.stringify(options.json)
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json'
      headers['Content-Length'] = String(Buffer.byteLength(body))
    }
    const started = performance.now()
    let response: IncomingMessage
    try {
      response = await send(url, { method, headers }, body)
    } catch (err) {
      log('ERROR', `${method} ${url.pathname}`, { error: causeOf(err) })
      throw new CliError(`cannot reach ${this.endpoint}: ${causeOf(err)}`, 'network_error')
    }
    const ms = Math.round(performance.now() - started)
    log('INFO', `${method} ${url.pathname}`, { status: response.statusCode, ms })
    const bookmark = newerBookmark(this.bookmark, response.headers[BOOKMARK_HEADER])
    if (bookmark !== this.bookmark) {
      // Saved once, as the command ends: every answer may bring a newer one.
      if (!this.saving) {
        this.saving = true
        process.once('exit', () => saveBookmark(this.endpoint, this.bookmark!))
      }
      this.bookmark = bookmark
    }
    return response
  }
}

/** Retry-After in seconds, or as an HTTP date; a wait of at least a second. */
export function retryAfter(value: string | undefined): number {
  if (value && /^\d+$/.test(value.trim())) return Math.max(1, Number(value.trim()))
  const date = value ? Date.parse(value) : NaN
  if (!Number.isNaN(date)) return Math.max(1, Math.ceil((date - Date.now()) / 1000))
  return DEFAULT_WAIT_S
}

/** The server's own `{error:{code,message}}`, or the status when the body is not that. */
export function errorFrom(status: number, text: string): CliError {
  try {
    const body = JSON.parse(text)
    if (body?.error?.code) {
      // The API points at its own routes; at the command line the command is the way there.
      const message = String(body.error.message).replace(
        'see GET /v1/renderers',
        'see svc renderers',
      )
      return new CliError(message, body.error.code)
    }
  } catch {
    // Not our JSON: fall through to the status line.
  }
  return new CliError(`HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim(), `http_${status}`)
}

/** A failure in a few words: a connection's system error code (ECONNREFUSED), else the message. */
export function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const { code, syscall } = err as NodeJS.ErrnoException
  return code && (syscall === 'connect' || syscall === 'getaddrinfo') ? code : err.message
}
