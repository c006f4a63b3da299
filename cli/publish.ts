import type { Api } from './client'
import type { Canvas, CreateCanvasRequest, UpdateCanvasRequest } from './types'

// The last step of every push: a new canvas, or a new version of canvas `id`, with the flags that
// go with it (--title, --renderer, --save, --temporary, --public), for a single file and a site alike.

export type PublishOptions = {
  title?: string
  renderer?: string
  save?: boolean
  temporary?: boolean
  public?: boolean
}

/** The content of a version: one uploaded file and its extension, or a site's items. */
export type Content =
  { file_id: string; ext: string } | { items: { path: string; file_id: string }[]; main?: string }

export async function publish(
  api: Api,
  options: PublishOptions,
  id: string | undefined,
  content: Content,
  defaultTitle: string,
): Promise<Canvas> {
  let canvas: Canvas
  if (id) {
    // The new version's type goes with it: a Markdown file pushed onto an HTML canvas is Markdown.
    canvas = await api.request<Canvas>(`/v1/canvases/${encodeURIComponent(id)}`, {
      method: 'PATCH',
      json: {
        ...content,
        title: options.title,
        renderer_id: options.renderer,
        visibility: options.public ? 'public' : undefined,
      } satisfies UpdateCanvasRequest,
    })
    if (options.save && canvas.expires_at) {
      canvas = await api.request<Canvas>(`/v1/canvases/${canvas.canvas_id}/permanent`, {
        method: 'POST',
      })
    }
    return canvas
  }
  canvas = await api.request<Canvas>('/v1/canvases', {
    method: 'POST',
    json: {
      ...content,
      title: options.title ?? defaultTitle,
      renderer_id: options.renderer,
      // Without --save or --temporary, the workspace's default: temporary, or kept if its admins
      // said so.
      permanent: options.save ? true : options.temporary ? false : undefined,
    } satisfies CreateCanvasRequest,
  })
  if (options.public) {
    canvas = await api.request<Canvas>(`/v1/canvases/${canvas.canvas_id}`, {
      method: 'PATCH',
      json: { visibility: 'public' },
    })
  }
  return canvas
}
