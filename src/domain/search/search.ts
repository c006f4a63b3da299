import { and, eq, sql } from 'drizzle-orm'
import type { SearchResult } from '../../schema/responses'
import type { Database } from '../../storage/db'
import { canvases, canvasTexts } from '../../storage/schema'
import { keyPerson, keyWorkspace } from '../keys'
import { readSearchCursor, searchCursor } from '../cursors'
import type { Lister } from '../canvases/reads'
import { authorOf, canvasColumns, type Visibility } from '../canvases/rows'
import { unexpired } from '../canvases/unexpired'
import { iso, isoOrNull, type Services } from '../services'
import { matchExpression, parseQuery } from './query'
import { BACKFILL_BATCH, backfillTexts } from './backfill'
import { unspaced } from './cjk'

// A workspace's canvases found by the words of their titles and text (docs/api.md#search): best
// match first (BM25, a title's words weighing ten times the text's), each with a snippet of its
// text around the words found. One statement: the index is asked for a page of its best matches
// within the workspace (the workspace is a term of the query, so only its postings are read),
// and only that page is joined to its canvases, so a page costs what its rows cost, not what the
// words match. Paged by position in the ranking.

/** The ranking is read this deep at most: a page past it is refused, not a scan. */
export const MAX_SEARCH_DEPTH = 1000

export type SearchQuery = {
  q: string
  /** The name the query came by, for the reason a query is refused (`q` in the API). */
  field?: string
  limit: number
  cursor?: string
  /** Where in the ranking the page starts, when no cursor says so (the dashboard's pages). */
  offset?: number
  /** Filters, applied before the page is cut (the dashboard's, and the author's). */
  ext?: string
  visibility?: Visibility
  /** Who published it: `me`, a user id or an email (domain/canvases/rows.ts `authorOf`). */
  author?: string
}

/** A match as the API shows it, but its page's address (the HTTP layer knows the origin). */
export type SearchHit = Omit<SearchResult, 'view_url'>

export type SearchPage = { results: SearchHit[]; next_cursor: string | null }

// Marks the index puts around each word found in a snippet: control characters, which the
// indexed text never holds (domain/search/text.ts), so no text can forge a mark.
const OPEN = '\u0002'
const CLOSE = '\u0003'

/**
 * The search's statement, for a batch: the workspace is given, or is the live key's with this
 * hash (read in the same statement). Throws invalid_request for a query that is not one.
 */
export function searchStatement(svc: Services, searcher: Lister, query: SearchQuery) {
  const terms = parseQuery(query.q, query.field)
  const offset = startOf(query)
  const db = svc.db
  // The workspace's term: given, or the key's workspace spliced in by SQL (unknown key: no term,
  // so nothing matches).
  const expression =
    'workspaceId' in searcher
      ? sql`${matchExpression(searcher.workspaceId, terms)}`
      : spliced(db, searcher.keyHash, matchExpression(WORKSPACE_SLOT, terms))
  const filtered =
    query.ext !== undefined || query.visibility !== undefined || query.author !== undefined
  // Whom `me` names: the session's person, or the key's, read in the same statement.
  const me = 'workspaceId' in searcher ? (searcher.userId ?? '') : keyPerson(db, searcher.keyHash)
  const match = sql`canvas_search MATCH ${expression}`
  const page = query.limit + 1
  // Filters need the canvas inside the ranking's page; without them the page is cut first.
  const ranked = filtered
    ? sql`SELECT canvas_search.canvas_id AS id, ${SNIPPET} AS snippet, rank FROM canvas_search
        JOIN ${canvasTexts} ON ${canvasTexts.id} = canvas_search.rowid
        JOIN ${canvases} ON ${canvases.canvasId} = ${canvasTexts.canvasId}
        WHERE ${and(
          match,
          unexpired(svc.now()),
          query.ext !== undefined ? eq(canvases.ext, query.ext) : undefined,
          query.visibility !== undefined ? eq(canvases.visibility, query.visibility) : undefined,
          query.author !== undefined
            ? eq(canvases.ownerUserId, authorOf(query.author, me))
            : undefined,
        )}
        ORDER BY rank LIMIT ${page} OFFSET ${offset}`
    : sql`SELECT canvas_id AS id, ${SNIPPET} AS snippet, rank FROM canvas_search
        WHERE ${match} ORDER BY rank LIMIT ${page} OFFSET ${offset}`
  // A LEFT JOIN: a canvas expired but not yet swept still counts a place in the page (and shows
  // as no result), so the next page starts where this one ended. The canvas's id comes from the
  // index's row, read once for it and the snippet.
  return db
    .select({
      canvas_id: canvases.canvasId,
      title: canvases.title,
      owner_user_id: canvases.ownerUserId,
      author_name: canvasColumns.author_name,
      ext: canvases.ext,
      version: canvases.version,
      visibility: canvases.visibility,
      size: canvases.size,
      updated_at: canvases.updatedAt,
      expires_at: canvases.expiresAt,
      snippet: sql<string>`m.snippet`.as('snippet'),
    })
    .from(sql`(${ranked}) AS m`)
    .leftJoin(canvases, and(sql`${canvases.canvasId} = m.id`, unexpired(svc.now())))
    .orderBy(sql`m.rank`)
}

const SNIPPET = sql.raw(`snippet(canvas_search, 2, char(2), char(3), '…', 24)`)

// The workspace's place in an expression built before the workspace is known.
const WORKSPACE_SLOT = '\u0001'

function spliced(db: Database, keyHash: string, expression: string) {
  const [before, after] = expression.split(`"${WORKSPACE_SLOT}"`)
  return sql`(${before} || '"' || coalesce((${keyWorkspace(db, keyHash)}), '') || '"' || ${after})`
}

export type SearchRow = {
  canvas_id: string | null
  title: string | null
  owner_user_id: string | null
  author_name: string | null
  ext: string | null
  version: number | null
  visibility: Visibility | null
  size: number | null
  updated_at: number | null
  expires_at: number | null
  snippet: string
}

/** A page of the workspace's matches, in a round trip of its own. */
export async function searchWorkspace(
  svc: Services,
  searcher: { workspaceId: string; userId: string },
  query: SearchQuery,
): Promise<SearchPage> {
  const { workspaceId, userId } = searcher
  const rows = await searchStatement(svc, { workspaceId, userId }, query).all()
  afterSearch(svc, workspaceId)
  return searchPage(rows, query)
}

/**
 * After a search answers, the workspace's canvases published before search that still wait for
 * their text are read, a batch at a time: the next search finds them by it.
 */
export function afterSearch(svc: Services, workspaceId: string) {
  svc.later?.(backfillTexts(svc, BACKFILL_BATCH, workspaceId))
}

/** The page of what `searchStatement` read, with the cursor of the next page when there is one. */
export function searchPage(rows: SearchRow[], query: SearchQuery): SearchPage {
  const next = startOf(query) + query.limit
  return {
    results: rows
      .slice(0, query.limit)
      .filter((row) => row.canvas_id !== null)
      .map(presentHit),
    next_cursor: rows.length > query.limit && next < MAX_SEARCH_DEPTH ? searchCursor(next) : null,
  }
}

function presentHit(row: SearchRow): SearchHit {
  const { text, highlights } = marked(row.snippet)
  return {
    canvas_id: row.canvas_id!,
    title: row.title!,
    author: { user_id: row.owner_user_id!, name: row.author_name ?? row.owner_user_id! },
    ext: row.ext!,
    version: row.version!,
    visibility: row.visibility!,
    size: row.size!,
    updated_at: iso(row.updated_at!),
    expires_at: isoOrNull(row.expires_at),
    snippet: text,
    highlights,
  }
}

function startOf(query: SearchQuery): number {
  if (query.cursor) return readSearchCursor(query.cursor, MAX_SEARCH_DEPTH)
  return Math.min(query.offset ?? 0, MAX_SEARCH_DEPTH)
}

/** A snippet's text without its marks, and where the marks were. */
export function marked(snippet: string): { text: string; highlights: [number, number][] } {
  let text = ''
  const highlights: [number, number][] = []
  let open = -1
  for (const part of snippet.split(/([\u0002\u0003])/)) {
    if (part === OPEN) open = text.length
    else if (part === CLOSE) {
      if (open >= 0 && text.length > open) highlights.push([open, text.length])
      open = -1
    } else text += unspaced(part)
  }
  return { text, highlights }
}
