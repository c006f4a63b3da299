import { and, eq, inArray } from 'drizzle-orm'
import { htmlUnits } from '../../render/html-units'
import { defaultRenderer } from '../../render/registry'
import { files } from '../../storage/schema'
import { pathExt } from '../canvases/site-items'
import type { Services } from '../services'
import { spacedCjk } from './cjk'

// The text a version is found by: of a single file, its text when it is text (Markdown, code,
// CSV, JSON, plain text, diagrams, a notebook's cells, HTML as the text a reader sees, without scripts, styles or markup); of a
// site, its main file's and then its pages' (HTML, Markdown, plain text), in the order of their
// paths. Bounded whatever the content's size: at most MAX_READ_BYTES of each file is read (one
// ranged read of storage, never the whole object), at most MAX_FILES files, and MAX_INDEXED_CHARS
// characters kept in all. So a 5 GiB log is found by the words of its first 256 KiB.

export const MAX_READ_BYTES = 256 * 1024
export const MAX_FILES = 10
export const MAX_INDEXED_CHARS = 64 * 1024

/** Renderers whose files hold text a person searches for. */
const TEXT_RENDERERS = new Set([
  'html',
  'markdown',
  'code',
  'json',
  'csv',
  'text',
  'mermaid',
  'notebook',
])
/** Of a site's files beside its main one: its pages, not its scripts, styles or data. */
const PAGE_RENDERERS = new Set(['html', 'markdown', 'text'])

export type VersionFiles = {
  /** The version's files by path; a single file's path is null. */
  items: { path: string | null; file_id: string }[]
  /** The main item's path, null for a single file. */
  main: string | null
  /** A single file's extension when the version names one (a site's come from its paths). */
  ext?: string
}

/**
 * The text to index of a version's files, read from storage within the bounds above. A failure to
 * read fails the publish (nothing is written), as any other of its steps: a version is never
 * indexed by less than its text.
 */
export async function versionText(
  svc: Services,
  workspaceId: string,
  version: VersionFiles,
): Promise<string> {
  const chosen = chosenFiles(version)
  const stored = svc.stored ?? new Map<string, { bytes: ArrayBuffer; mime: string }>()
  const unknown = chosen.filter((f) => !stored.has(f.fileId))
  const rows =
    unknown.length === 0
      ? []
      : await svc.db
          .select({ fileId: files.fileId, blobKey: files.blobKey, mime: files.mime })
          .from(files)
          .where(
            and(
              eq(files.workspaceId, workspaceId),
              eq(files.status, 'ready'),
              inArray(
                files.fileId,
                unknown.map((f) => f.fileId),
              ),
            ),
          )
  const found = new Map(rows.map((f) => [f.fileId, f]))
  const texts = await Promise.all(
    chosen.map(async (f) => {
      const known = stored.get(f.fileId)
      const row = found.get(f.fileId)
      const mime = known?.mime ?? row?.mime
      // A single file sent without its extension is text when its type says so.
      const renderer = f.renderer ?? defaultRenderer('', mime).renderer_id
      if (mime === undefined || !TEXT_RENDERERS.has(renderer)) return ''
      const head = known
        ? {
            bytes: new Uint8Array(known.bytes, 0, Math.min(known.bytes.byteLength, MAX_READ_BYTES)),
            whole: known.bytes.byteLength <= MAX_READ_BYTES,
          }
        : await readHead(svc, row!.blobKey)
      return textOf(head && decoded(head.bytes, head.whole), renderer)
    }),
  )
  return bounded(spacedCjk(texts.filter((t) => t !== '').join('\n\n')))
}

/** A file to read, with its renderer (undefined: decided by its stored type). */
type Chosen = { fileId: string; renderer?: string }

/** The files read for a version's text, main first, at most MAX_FILES. */
function chosenFiles(version: VersionFiles): Chosen[] {
  if (version.main === null) {
    const fileId = version.items[0].file_id
    if (version.ext === undefined) return [{ fileId }]
    const renderer = defaultRenderer(version.ext, 'text/plain').renderer_id
    return TEXT_RENDERERS.has(renderer) ? [{ fileId, renderer }] : []
  }
  const main = version.items.find((item) => item.path === version.main)!
  const pages = version.items
    .filter((item) => item !== main)
    .map((item) => ({ item, renderer: rendererOfPath(item.path!) }))
    .filter(({ renderer }) => PAGE_RENDERERS.has(renderer))
    .sort((a, b) => (a.item.path! < b.item.path! ? -1 : 1))
  const mainRenderer = rendererOfPath(main.path!)
  return [
    ...(TEXT_RENDERERS.has(mainRenderer) ? [{ fileId: main.file_id, renderer: mainRenderer }] : []),
    ...pages.map(({ item, renderer }) => ({ fileId: item.file_id, renderer })),
  ].slice(0, MAX_FILES)
}

function rendererOfPath(path: string): string {
  const ext = pathExt(path)
  return ext ? defaultRenderer(ext).renderer_id : 'download'
}

/**
 * The first MAX_READ_BYTES of an object, and whether that is all of it: read from the object's
 * stream, which is let go of there, whatever the object's size.
 */
async function readHead(svc: Services, blobKey: string) {
  const object = await svc.bucket.get(blobKey)
  if (!object) return null
  const head = new Uint8Array(Math.min(object.size, MAX_READ_BYTES))
  const reader = object.body.getReader()
  let filled = 0
  while (filled < head.byteLength) {
    const { done, value } = await reader.read()
    if (done) break
    const part = value.subarray(0, head.byteLength - filled)
    head.set(part, filled)
    filled += part.byteLength
  }
  await reader.cancel()
  return { bytes: head.subarray(0, filled), whole: object.size <= MAX_READ_BYTES }
}

/** Bytes as UTF-8 text; null when they are not text. */
function decoded(bytes: Uint8Array, whole: boolean): string | null {
  try {
    // Not `whole`: a character cut in two by the end of the read is left out, not an error.
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes, {
      stream: !whole,
    })
    return text.includes('\0') ? null : text
  } catch {
    return null
  }
}

/**
 * A file's text as a reader sees it, since a snippet shows it: HTML and Markdown without their
 * markup, a notebook by its cells (not its outputs' images or its metadata, nor the lines that
 * separate cells), anything else as it is.
 */
async function textOf(text: string | null, renderer: string): Promise<string> {
  if (text === null) return ''
  if (renderer === 'html') return visibleText(text)
  if (renderer === 'markdown') return markdownText(text)
  if (renderer !== 'notebook') return text
  // The streaming JSON parser loads with the first notebook, not with the Worker.
  const { notebookCells } = await import('../../render/notebook-source')
  const cells = notebookCells(text)
  const texts = await Promise.all(
    cells.map((cell) => (cell.kind === 'markdown' ? markdownText(cell.source) : cell.source)),
  )
  return texts.join('\n\n')
}

/**
 * Markdown as the words its page shows: rendered as its frame renders it, then read as HTML is.
 * Math keeps its TeX without its delimiters; code its text without fences; a table its cells.
 * What is past the renderer's input limit is kept as written. Loaded on first use: publishing
 * is its only caller.
 */
async function markdownText(source: string): Promise<string> {
  const { markdownHtml, MARKDOWN_INPUT_LIMIT } = await import('../../render/markdown')
  // Past the limit, cut at the last line break before it (or at the limit, on one long line).
  let cut = source.length
  if (cut > MARKDOWN_INPUT_LIMIT) {
    const line = source.lastIndexOf('\n', MARKDOWN_INPUT_LIMIT)
    cut = line > 0 ? line : MARKDOWN_INPUT_LIMIT
  }
  // No highlighting: the words are wanted, not their colours.
  const shown = visibleText(markdownHtml(source.slice(0, cut), { left: 0 }))
  return cut < source.length ? `${shown} ${source.slice(cut)}` : shown
}

/** An HTML document's text as a reader sees it: no markup, script, style or title. */
export function visibleText(html: string): string {
  const units = htmlUnits(html) ?? []
  return decodeRefs(
    units
      .filter((u) => u.kind === 'text')
      .map((u) => u.raw)
      .join(' '),
  )
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
}

/** Character references as the characters they stand for (named ones beyond XML's, as spaces). */
function decodeRefs(text: string): string {
  return text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));?/g,
    (_, dec: string, hex: string, name: string) => {
      if (name !== undefined) return NAMED[name] ?? ' '
      const code = dec !== undefined ? Number(dec) : parseInt(hex, 16)
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : ' '
    },
  )
}

/**
 * The text as stored: control characters (the snippets' marks are two of them) as spaces, runs of
 * blank space as one, and at most MAX_INDEXED_CHARS characters, never half of a surrogate pair.
 */
export function bounded(text: string): string {
  const clean = text.replace(/[\p{Cc}\s]+/gu, ' ').trim()
  if (clean.length <= MAX_INDEXED_CHARS) return clean
  const cut = /[\ud800-\udbff]/.test(clean[MAX_INDEXED_CHARS - 1])
    ? MAX_INDEXED_CHARS - 1
    : MAX_INDEXED_CHARS
  return clean.slice(0, cut)
}
