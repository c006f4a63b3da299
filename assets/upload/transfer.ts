// An upload on the wire: a file's hash and type, JSON to the web app's upload routes (with the
// session's CSRF token), and the bytes PUT straight to storage with their progress.
import type { UploadRequest } from '../../src/schema/requests'
import type { Presign } from '../../src/schema/responses'
import { dropped, serverFailed, UploadError } from './errors'

/** The file's hash and type, as the server's presign and finish take them. */
export async function describe(file: File): Promise<UploadRequest> {
  const buffer = await file.arrayBuffer()
  const digest = await crypto.subtle.digest('SHA-256', buffer)
  return {
    sha256: hex(digest),
    ext: extOf(file.name, buffer.slice(0, 4096)),
    size: file.size,
    mime: /^[\w.+-]+\/[\w.+-]+$/.test(file.type) ? file.type : 'application/octet-stream',
  }
}

// Mirrors the server's rule for a file's type: its extension, else text or binary by its bytes.
function extOf(name: string, head: ArrayBuffer): string {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(name)
  if (match) return match[1].toLowerCase()
  const bytes = new Uint8Array(head)
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true })
  } catch {
    return 'bin'
  }
  return bytes.indexOf(0) >= 0 ? 'bin' : 'txt'
}

function hex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('')
}

export async function postJson<T>(path: string, body: object, csrf: string): Promise<T> {
  let res: Response
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'X-CSRF-Token': csrf,
      },
      body: JSON.stringify(body),
    })
  } catch {
    throw dropped()
  }
  // Without a session the request is sent to log in, and answered with that page.
  if (res.redirected && new URL(res.url).pathname === '/login') {
    throw new UploadError(
      'Your session has ended. Log in again in another tab, then retry: nothing was lost here.',
      true,
    )
  }
  if (res.status >= 500) throw serverFailed(res.status)
  const json = /json/.test(res.headers.get('Content-Type') ?? '')
  const data: unknown = json ? await res.json().catch(() => null) : null
  if (res.ok && data) return data as T
  const error = (data as { error?: { code?: string; message?: string } } | null)?.error
  if (res.status === 429) {
    throw new UploadError('Too many uploads in a short time. Wait a minute, then retry.', true)
  }
  // A refusal says why in words of its own (a role, or a form to reload): a retry would not help.
  if (error?.code === 'forbidden') throw new UploadError(error.message ?? 'Not allowed.', false)
  throw new UploadError(
    error?.message ??
      `The upload failed: the server answered ${res.status}. Retry, or reload the page.`,
    !error,
  )
}

export function putFile(presigned: Presign, file: File, onProgress: (bytes: number) => void) {
  return new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('PUT', presigned.upload_url)
    for (const [name, value] of Object.entries(presigned.headers ?? {})) {
      xhr.setRequestHeader(name, value)
    }
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded)
    }
    xhr.onload = () => {
      // 412: the bytes are there already (another tab, an earlier try): nothing left to send.
      if ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 412) resolve()
      else if (xhr.status >= 500) reject(serverFailed(xhr.status))
      else
        reject(
          new UploadError(
            `Storage refused ${file.name} (${xhr.status}): its upload link may have expired. Retry to get a new one.`,
            true,
          ),
        )
    }
    xhr.onerror = () => reject(dropped())
    xhr.send(file)
  })
}
