import {
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http'
import { request as httpsRequest } from 'node:https'

// The CLI's one HTTP stack is node:http, not fetch: fetch is undici, whose HTTP parser is
// WebAssembly that V8 compiles on a background thread at first use, raising the peak memory
// (docs/benchmarks-history.md, the CLI's memory).

// A connection that moves no byte for this long is given up (fetch's default was the same).
const IDLE_TIMEOUT_MS = 300_000

/** An HTTP or HTTPS request to `url`; the caller writes the body and ends it. */
export function open(url: URL, options: RequestOptions): ClientRequest {
  const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options)
  req.setTimeout(IDLE_TIMEOUT_MS, () => {
    req.destroy(new Error(`no data for ${IDLE_TIMEOUT_MS / 1000} s`))
  })
  return req
}

/**
 * Sends a request with a small body or none; answers once the response's headers are in. A kept-
 * alive connection the server closed as idle just as it was reused (ECONNRESET before any answer)
 * never carried the request: it is sent once more, on a new connection.
 */
export async function send(
  url: URL,
  options: RequestOptions,
  body?: string,
): Promise<IncomingMessage> {
  try {
    return await sendOnce(url, options, body)
  } catch (err) {
    if (!(err as { reused?: boolean }).reused) throw err
    return sendOnce(url, options, body)
  }
}

function sendOnce(url: URL, options: RequestOptions, body?: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = open(url, options)
    req.on('response', resolve)
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && err.code === 'ECONNRESET'
      reject(Object.assign(err, { reused: stale }))
    })
    req.end(body)
  })
}

/** The whole body of a small response (JSON, an error). */
export async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
