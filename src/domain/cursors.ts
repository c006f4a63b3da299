import { AppError } from '../lib/errors'

// Cursors of the lists: where the next page starts, in the order the list is read (newest
// first), as an opaque URL-safe token. A page read from a cursor costs what the first page costs
// (keyset paging: the index is entered at the cursor), whatever the depth.

const encode = (text: string) =>
  btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

function decode(token: string): string {
  try {
    return atob(token.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    throw badCursor()
  }
}

const badCursor = () => new AppError('invalid_request', 'cursor: is not a cursor this API gave')

/** After the canvas created at `createdAt` with id `canvasId` (ties broken by id). */
export const canvasCursor = (createdAt: number, canvasId: string) =>
  encode(`c.${createdAt}.${canvasId}`)

export function readCanvasCursor(token: string) {
  const match = /^c\.(\d{1,15})\.([A-Za-z0-9]{1,64})$/.exec(decode(token))
  if (!match) throw badCursor()
  return { createdAt: Number(match[1]), canvasId: match[2] }
}

/** After version `version` (versions are listed newest first). */
export const versionCursor = (version: number) => encode(`v.${version}`)

export function readVersionCursor(token: string): number {
  const match = /^v\.([1-9]\d{0,8})$/.exec(decode(token))
  if (!match) throw badCursor()
  return Number(match[1])
}

/** After the audit event written at `at` as row `row` (ties broken by the order of writing). */
export const auditCursor = (at: number, row: number) => encode(`a.${at}.${row}`)

export function readAuditCursor(token: string) {
  const match = /^a\.(\d{1,15})\.(\d{1,18})$/.exec(decode(token))
  if (!match) throw badCursor()
  return { at: Number(match[1]), row: Number(match[2]) }
}

/** The place in a search's ranking where the next page starts. */
export const searchCursor = (offset: number) => encode(`s.${offset}`)

export function readSearchCursor(token: string, depth: number): number {
  const match = /^s\.(\d{1,9})$/.exec(decode(token))
  if (!match || Number(match[1]) >= depth) throw badCursor()
  return Number(match[1])
}
