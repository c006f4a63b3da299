import { STATUS_CODES } from 'node:http'
import { CliError } from './errors'
import { readText, send } from './http'
import { log } from './log'

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

export class Api {
  constructor(
    readonly endpoint: string,
    private readonly apiKey?: string,
  ) {}

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

  private async exchange(path: string, options: RequestOptions): Promise<Answer> {
    const method = options.method ?? 'GET'
    const url = new URL(this.endpoint + path)
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    const headers: Record<string, string> = { ...options.headers }
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
    let answer: Answer
    try {
      const response = await send(url, { method, headers }, body)
      const location = response.headers.location
      answer = { status: response.statusCode ?? 0, location, text: await readText(response) }
    } catch (err) {
      log('ERROR', `${method} ${url.pathname}`, { error: causeOf(err) })
      throw new CliError(`cannot reach ${this.endpoint}: ${causeOf(err)}`, 'network_error')
    }
    const ms = Math.round(performance.now() - started)
    log('INFO', `${method} ${url.pathname}`, { status: answer.status, ms })
    if (answer.status >= 400) throw errorFrom(answer.status, answer.text)
    return answer
  }
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
