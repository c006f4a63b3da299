import * as z from 'zod/mini'
import {
  canvas,
  canvasDetail,
  canvasList,
  comment,
  commentList,
  commentNews,
  renderer,
  reply,
  readership,
  review,
  searchList,
  revoked,
  share,
  success,
  usage,
  versionList,
  workspaceEntry,
} from './responses'

// What the MCP tools answer: the API's response shapes, with the URLs people open. Each tool
// declares its shape as an `outputSchema` (the JSON Schema generated from it) and answers
// `structuredContent` of that shape; the tools' code is typed by these.

const viewUrl = { view_url: z.string() }

/** A canvas with its page: `view_url`, the address to give a person. */
export const canvasResult = z.extend(canvas, viewUrl)

export const canvasDetailResult = z.extend(canvasDetail, viewUrl)

export const canvasListResult = z.extend(canvasList, { canvases: z.array(canvasResult) })

/** A share link with its address, `url`. */
export const shareResult = z.extend(share, { url: z.string() })

/** A new link; `note` when its canvas ends it sooner than asked (say so to the person). */
export const newShareResult = z.extend(shareResult, { note: z.optional(z.string()) })

export const shareListResult = z.object({ shares: z.array(shareResult) })

export const readResult = z.object({
  canvas_id: z.string(),
  version: z.int().check(z.minimum(1)),
  ext: z.string(),
  /** The site's file read, when one was asked for. */
  path: z.optional(z.string()),
  /** The text; null when it is not returned (then `reason`, `size` and `download_url`). */
  text: z.nullable(z.string()),
  reason: z.optional(z.enum(['binary content', 'too large to return as text'])),
  size: z.optional(z.int().check(z.minimum(0))),
  download_url: z.optional(z.string()),
})

export const searchCanvasesResult = searchList

/** ChatGPT's connectors' search: each result an id to fetch, a title and the page's address. */
export const searchResult = z.object({
  results: z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })),
})

/** ChatGPT's connectors' fetch: a canvas's text and what it is. */
export const fetchResult = z.object({
  id: z.string(),
  title: z.string(),
  /** The latest version's text (an HTML page's as a reader sees it); empty when not text. */
  text: z.string(),
  url: z.string(),
  metadata: z.object({
    ext: z.string(),
    version: z.int().check(z.minimum(1)),
    /** Why `text` is empty, when it is. */
    note: z.optional(z.string()),
  }),
})

export const usageResult = z.extend(usage, { renderers: z.array(renderer) })

export const workspacesResult = z.object({
  workspaces: z.array(z.extend(workspaceEntry, { current: z.boolean() })),
})

export {
  comment,
  commentList,
  commentNews,
  readership,
  reply,
  review,
  revoked,
  success,
  versionList,
}

export type CanvasResult = z.output<typeof canvasResult>
export type ShareResult = z.output<typeof shareResult>
