import { CliError } from './errors'
import { log } from './log'

// HTTP to the Canvas API: every request is logged (method, path, status, ms; never secrets), and
// every failure becomes a CliError carrying the server's own code.

export type RequestOptions = {
  method?: string
  json?: unknown
  query?: Record<string, string | number | undefined>
  headers?: Record<string, string>
  /** Answer the raw response instead of parsing JSON (redirects are never followed). */
  raw?: boolean
  auth?: boolean
}

export class Api {
  constructor(
    readonly endpoint: string,
    private readonly apiKey?: string,
  ) {}

  async request<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
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
    if (options.json !== undefined) headers['Content-Type'] = 'application/json'
    const started = performance.now()
    let response: Response
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.json === undefined ? undefined : JSON.stringify(options.json),
        redirect: 'manual',
      })
    } catch (err) {
      log('ERROR', `${method} ${url.pathname}`, { error: causeOf(err) })
      throw new CliError(`cannot reach ${this.endpoint}: ${causeOf(err)}`, 'network_error')
    }
    const ms = Math.round(performance.now() - started)
    log('INFO', `${method} ${url.pathname}`, { status: response.status, ms })
    if (response.status >= 400) throw await errorFrom(response)
    if (options.raw) return response as T
    try {
      return (await response.json()) as T
    } catch {
      throw new CliError(
        `unexpected answer from ${this.endpoint} (HTTP ${response.status})`,
        'bad_response',
      )
    }
  }

  /** A route that answers 302 to a signed URL: returns that URL without following it. */
  async location(path: string, options: RequestOptions = {}): Promise<string> {
    const response = await this.request<Response>(path, { ...options, raw: true })
    const location = response.headers.get('Location')
    if (response.status !== 302 || !location) {
      throw new CliError(
        `expected a redirect from ${path}, got HTTP ${response.status}`,
        'bad_response',
      )
    }
    return new URL(location, this.endpoint).toString()
  }
}

export async function errorFrom(response: Response): Promise<CliError> {
  const text = await response.text().catch(() => '')
  try {
    const body = JSON.parse(text)
    if (body?.error?.code) return new CliError(body.error.message, body.error.code)
  } catch {
    // Not our JSON: fall through to the status line.
  }
  return new CliError(
    `HTTP ${response.status} ${response.statusText}`.trim(),
    `http_${response.status}`,
  )
}

export function causeOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    return cause?.code ?? cause?.message ?? err.message
  }
  return String(err)
}
