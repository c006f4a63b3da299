import { createHash } from 'node:crypto'
import { expect } from 'vitest'
import type { ApiInit } from './api.ts'

type Api = (path: string, init?: ApiInit) => Promise<Response>

/**
 * Canvases, versions, links and sites made through a deployment's API as a script or agent makes
 * them, by the holder of the key `api` sends.
 */
export function publisher(api: Api) {
  /** A canvas from the API's multipart form, with any other fields of the form. */
  async function canvas(
    name: string,
    content: string | Uint8Array<ArrayBuffer>,
    extra: Record<string, string> = {},
  ) {
    const form = new FormData()
    form.append('file', new Blob([content]), name)
    for (const [k, v] of Object.entries(extra)) form.append(k, v)
    const res = await api('/v1/canvases', { method: 'POST', body: form })
    expect(res.status).toBe(201)
    return ((await res.json()) as { canvas_id: string }).canvas_id
  }

  async function newVersion(id: string, name: string, content: string) {
    const form = new FormData()
    form.append('file', new Blob([content]), name)
    expect((await api(`/v1/canvases/${id}`, { method: 'PATCH', body: form })).status).toBe(200)
  }

  /** A share link's token. */
  async function share(id: string, json: object = {}) {
    const res = await api(`/v1/canvases/${id}/shares`, { method: 'POST', json })
    expect(res.status).toBe(201)
    return ((await res.json()) as { token: string }).token
  }

  /** A site through the upload flow, as `svc push <folder>` makes one: each file, then items. */
  async function site(title: string, files: Record<string, [string, string, string]>) {
    const items = []
    for (const [path, [text, ext, mime]] of Object.entries(files)) {
      const sha256 = createHash('sha256').update(text).digest('hex')
      const meta = { sha256, ext, size: Buffer.byteLength(text), mime }
      const presign = (await (
        await api('/v1/upload/presign', { method: 'POST', json: meta })
      ).json()) as { exists?: boolean; upload_url: string; headers: Record<string, string> }
      if (!presign.exists) {
        const put = await fetch(presign.upload_url, {
          method: 'PUT',
          body: text,
          headers: presign.headers,
        })
        expect(put.status).toBe(200)
      }
      const fin = (await (
        await api('/v1/upload/finalize', { method: 'POST', json: meta })
      ).json()) as { file: { file_id: string } }
      items.push({ path, file_id: fin.file.file_id })
    }
    const res = await api('/v1/canvases', { method: 'POST', json: { title, items } })
    expect(res.status).toBe(201)
    return ((await res.json()) as { canvas_id: string }).canvas_id
  }

  /** The path of a new invite link to the key's workspace. */
  async function inviteLink(role = 'viewer') {
    const me = (await (await api('/v1/me')).json()) as { workspace: { workspace_id: string } }
    const res = await api(`/v1/workspaces/${me.workspace.workspace_id}/invites`, {
      method: 'POST',
      json: { role },
    })
    expect(res.status).toBe(201)
    return new URL(((await res.json()) as { url: string }).url).pathname
  }

  return { canvas, newVersion, share, site, inviteLink }
}
