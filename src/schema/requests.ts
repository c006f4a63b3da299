import * as z from 'zod/mini'
import en from 'zod/v4/locales/en.js'
import { MAX_WAIT_SECONDS } from '../lib/live-events'
import { LONE_SURROGATE } from '../lib/content-types'
import { HIDDEN_CHARACTERS, shownNameProblem } from '../lib/names'
import { AppError } from '../lib/errors'
import { itemPathProblem, pathShapeProblem } from '../lib/item-paths'

// Request shapes: the single source of the Worker's validation, for the API, the web forms and the
// MCP tools alike, and of the API description (/openapi.json). zod/mini (with the English messages
// only) keeps the Worker bundle small; messages name the rule broken.
z.config(en())

/** An Idempotency-Key: printable ASCII, as a header is written; 255 leaves room for a UUID. */
export const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/

/** What an API key may do: `read` (GET routes) and `write` (everything; implies read). */
export const SCOPES = ['read', 'write'] as const
export type Scope = (typeof SCOPES)[number]

/** A member's role in a workspace, least first: each has what the ones before it have. */
export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const
export type Role = (typeof ROLES)[number]

export const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s)
// Half of a UTF-16 pair cannot be stored or encoded faithfully (D1 would keep three U+FFFD for
// it, past the length limit): free text must be whole characters.
export const wholeCharacters = z.refine<string>(
  (s: string) => s.search(LONE_SURROGATE) === -1,
  'must not contain unpaired surrogates (half of a character)',
)
export const pattern = (re: RegExp, message: string) => z.string().check(z.regex(re, message))
export const wholeNumber = (message = 'must be a whole number') =>
  z.number().check(z.refine((n) => Number.isSafeInteger(n), message))

export const sha256 = pattern(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')
export const ext = pattern(
  /^[a-z0-9]{1,16}$/,
  'must be 1 to 16 lowercase letters or digits, without the dot',
)
export const title = z
  .string()
  .check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(200, 'must be at most 200 characters'),
    z.refine(noControl, 'must not contain control characters'),
    wholeCharacters,
  )
export const id = pattern(/^[A-Za-z0-9]{1,64}$/, 'is not a valid id')
const mime = z
  .string()
  .check(
    z.maxLength(255, 'must be at most 255 characters'),
    z.regex(/^[\w.+-]+\/[\w.+-]+(\s*;[\x20-\x7e]*)?$/, 'must be a media type such as text/html'),
  )
export const rendererId = pattern(/^[a-z]{1,32}$/, 'is not a renderer id')
// An API key's name: shown in Settings and the audit log beside the person's, so the characters
// that let one name pass for another are refused, as in workspace and display names.
export const keyName = z.string().check(
  z.minLength(1, 'must not be empty'),
  z.maxLength(100, 'must be at most 100 characters'),
  z.refine(noControl, 'must not contain control characters'),
  wholeCharacters,
  z.refine((s) => shownNameProblem(s) === null, HIDDEN_CHARACTERS),
)
export const visibility = z.enum(['private', 'public'], 'must be private or public')

export const uploadBody = z.strictObject({
  sha256,
  ext,
  size: wholeNumber().check(z.minimum(0, 'must not be negative')),
  mime,
  file_id: z.optional(id),
})

/** The checks of a rule written as a function answering its problem, or null when there is none. */
const ruled = (problem: (s: string) => string | null) =>
  z.superRefine<string>((s, ctx) => {
    const message = problem(s)
    if (message) ctx.addIssue({ code: 'custom', message, input: s })
  })

/**
 * A file's place in a site: relative and `/`-separated (`img/a.png`), so that it is a URL path
 * and a file path on every system alike; nothing that could climb out of the site's folder or
 * that a common file system could not hold (lib/item-paths.ts, which the CLI checks with too).
 */
export const itemPath = z
  .string()
  .check(z.minLength(1, 'must not be empty'), ruled(itemPathProblem))

/**
 * A path to look an item up by: any path a stored item can have, including those of versions
 * made before the rules for new items grew.
 */
export const itemPathLookup = z
  .string()
  .check(z.minLength(1, 'must not be empty'), ruled(pathShapeProblem))

const items = z
  .array(z.strictObject({ path: itemPath, file_id: id }))
  .check(z.minLength(1, 'must hold at least one item'))

// A body names its content by `file_id` (one file) or by `items` and `main` (a site); which one
// was given is checked in the domain (domain/canvases/site-items.ts), for the API and MCP alike.
const contentFields = {
  file_id: z.optional(id),
  items: z.optional(items),
  main: z.optional(itemPath),
}

export const createCanvasBody = z.strictObject({
  ...contentFields,
  title,
  ext: z.optional(ext),
  renderer_id: z.optional(rendererId),
  permanent: z.optional(z.boolean()),
})

export const updateCanvasFields = {
  ...contentFields,
  // The type of the new content: a version of another type changes the canvas's ext and renderer.
  ext: z.optional(ext),
  title: z.optional(title),
  visibility: z.optional(visibility),
  renderer_id: z.optional(rendererId),
}

export const updateCanvasBody = z
  .strictObject(updateCanvasFields)
  .check(
    z.refine(
      (b) => Object.values(b).some((v) => v !== undefined),
      'an update needs at least one of file_id, items, title, visibility, renderer_id',
    ),
  )

/** A whole number in a query string, within bounds. */
export const count = (min: number, max: number) =>
  z.optional(
    z.pipe(
      z.pipe(pattern(/^\d{1,10}$/, 'must be a whole number'), z.transform(Number)),
      z
        .number()
        .check(z.minimum(min, `must be at least ${min}`), z.maximum(max, `must be at most ${max}`)),
    ),
  )

/** A `next_cursor` as the API gave it: opaque, URL-safe. */
export const cursorToken = pattern(/^[A-Za-z0-9_-]{1,200}$/, 'is not a cursor this API gave')
export const cursor = z.optional(cursorToken)

/**
 * Who published a canvas, as a filter names them: `me`, a member's user id, or their email (one
 * that names no member of the workspace finds nothing).
 */
export const authorFilter = z.optional(
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(254, 'must be at most 254 characters'),
      z.refine(noControl, 'must not contain control characters'),
    ),
)

export const listQuery = z
  .object({
    visibility: z.optional(visibility),
    ext: z.optional(ext),
    author: authorFilter,
    limit: count(1, 100),
    offset: count(0, 1_000_000_000),
    cursor,
  })
  .check(
    z.refine(
      (q) => q.cursor === undefined || q.offset === undefined,
      'cursor: give either cursor or offset, not both',
    ),
  )

export const versionsQuery = z.object({ limit: count(1, 1000), cursor })

export const downloadQuery = z.object({
  dl: z.optional(z.enum(['0', '1', 'true', 'false'], 'must be 1 or 0')),
})

export type DownloadQuery = z.output<typeof downloadQuery>

export const versionParam = z.pipe(
  pattern(/^[1-9]\d{0,8}$/, 'must be a positive whole number'),
  z.transform(Number),
)

// Path parameters. A canvas id that cannot exist is answered as one that does not (404, never
// revealing which ids could), and a path no file can have is a file not there (404 not_found).
const canvasIdInPath = z.pipe(
  z.string(),
  z.transform((value) => (id.safeParse(value).success ? value : '')),
)
const itemPathInPath = z.pipe(
  z.string(),
  z.transform((value) => {
    if (itemPathLookup.safeParse(value).success) return value
    throw new AppError('not_found', 'path: no file can have this path')
  }),
)

export const canvasInPath = z.object({ id: canvasIdInPath })
export const versionInPath = z.object({ id: canvasIdInPath, version: versionParam })
export const itemInPath = z.object({ id: canvasIdInPath, path: itemPathInPath })
export const versionItemInPath = z.object({
  id: canvasIdInPath,
  version: versionParam,
  path: itemPathInPath,
})
// A share token that cannot exist is looked up as one that does not (404, not 400).
const tokenInPath = z.pipe(
  z.string(),
  z.transform((value) => (shareToken.safeParse(value).success ? value : '')),
)
export const shareInPath = z.object({ id: canvasIdInPath, token: tokenInPath })
export const linkInPath = z.object({ token: tokenInPath })
export const linkItemInPath = z.object({ token: tokenInPath, path: itemPathInPath })

const DURATION_UNITS = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 } as const
const MAX_SHARE_SECONDS = 365 * 86400

/** `30m`, `24h`, `7d`: a positive count and a unit (s, m, h, d, w); at most 365 days. */
export const duration = z.pipe(
  z.pipe(
    pattern(
      /^[1-9]\d{0,8}[smhdw]$/,
      'must be a duration such as 30m, 24h or 7d (units s, m, h, d, w)',
    ),
    z.transform((value) => Number(value.slice(0, -1)) * DURATION_UNITS[value.slice(-1) as 's']),
  ),
  z.number().check(z.maximum(MAX_SHARE_SECONDS, 'must be at most 365d')),
)

export const shareToken = pattern(
  /^[A-Za-z0-9_-]{8,64}$/,
  'must be 8 to 64 letters, digits, _ or -',
)

export const versionNumber = wholeNumber().check(z.minimum(1, 'must be at least 1'))

export const createShareFields = {
  expires_in: z.optional(duration),
  password: z.optional(
    z
      .string()
      .check(
        z.minLength(4, 'must be at least 4 characters'),
        z.maxLength(256, 'must be at most 256 characters'),
        wholeCharacters,
      ),
  ),
  max_views: z.optional(
    wholeNumber().check(
      z.minimum(1, 'must be at least 1'),
      z.maximum(1_000_000, 'must be at most 1000000'),
    ),
  ),
  version: z.optional(versionNumber),
  token: z.optional(shareToken),
  allow_comments: z.optional(z.boolean('must be true or false')),
  /** `approved`: the link shows the canvas's approved version (docs/reviews.md). */
  follow: z.optional(z.enum(['latest', 'approved'], 'must be latest or approved')),
}

export const createShareBody = z.strictObject(createShareFields)

// Comments (docs/comments-and-webhooks.md). Free text must be whole characters; a quote is matched
// against the rendered text, so its bounds are generous but finite.
const text = (max: number, field = 'characters') =>
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(max, `must be at most ${max} ${field}`),
      wholeCharacters,
    )
const fraction = z
  .number()
  .check(z.refine((n) => Number.isFinite(n) && n >= 0 && n <= 1, 'must be a number from 0 to 1'))
const optionalContext = z.optional(
  z.string().check(z.maxLength(200, 'must be at most 200 characters'), wholeCharacters),
)
export const MAX_COMMENT_LENGTH = 10_000
export const MAX_QUOTE_LENGTH = 2_000

/** Where a comment points: a text quote (W3C TextQuoteSelector) or a point of the content. */
export const commentAnchor = z.union([
  z.strictObject({
    quote: z.strictObject({
      exact: text(MAX_QUOTE_LENGTH),
      prefix: optionalContext,
      suffix: optionalContext,
    }),
  }),
  z.strictObject({ point: z.strictObject({ x: fraction, y: fraction }) }),
])

const commentBody = text(MAX_COMMENT_LENGTH)
/**
 * A name a person gives themselves to be shown to others: a visitor's, beside what they wrote
 * (always with its visitor mark), or a member's display name, which is what a share link's
 * readers see of them. Never an email (members are known to each other by theirs), nothing that
 * hides what it is (lib/names.ts).
 */
export const personName = z.pipe(
  z.string().check(z.trim()),
  z.string().check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(60, 'must be at most 60 characters'),
    z.refine(noControl, 'must not contain control characters'),
    wholeCharacters,
    z.refine((s) => shownNameProblem(s) === null, HIDDEN_CHARACTERS),
    z.refine((s) => !s.includes('@'), 'must not be an email address: members are named by those'),
  ),
)

export const createCommentBody = z.strictObject({
  body: commentBody,
  anchor: z.optional(z.nullable(commentAnchor)),
  version: z.optional(versionNumber),
})
export const replyBody = z.strictObject({ body: commentBody })
export const visitorCommentBody = z.strictObject({
  body: commentBody,
  name: personName,
  anchor: z.optional(z.nullable(commentAnchor)),
})
export const visitorReplyBody = z.strictObject({ body: commentBody, name: personName })

// An id that cannot exist is looked up as one that does not (404, not 400).
export const anyIdInPath = z.pipe(
  z.string(),
  z.transform((value) => (id.safeParse(value).success ? value : '')),
)
export const COMMENT_STATUSES = ['open', 'resolved', 'all'] as const
export const commentsQuery = z.object({
  status: z.optional(z.enum(COMMENT_STATUSES, 'must be open, resolved or all')),
  version: z.optional(versionParam),
})

export { MAX_WAIT_SECONDS }

/** A moment as the API writes one (ISO 8601 in UTC, as `created_at` is), read as milliseconds. */
const MOMENT = 'must be a time such as 2026-11-28T12:00:00Z'
const moment = z.pipe(
  pattern(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/, MOMENT),
  z.pipe(
    z.transform((text: string) => Date.parse(text)),
    // A shape of a time that is none (the 45th of the 13th month).
    z.number().check(z.refine((ms) => Number.isFinite(ms), MOMENT)),
  ),
)

/** A whole number from 1 to `max` in a query string, of `what` (`timeout_s=30`, `days=7`). */
export function boundedInQuery(max: number, what: string) {
  const message = `must be a whole number of ${what} from 1 to ${max}`
  return z.pipe(
    pattern(/^\d{1,9}$/, message),
    z.pipe(z.transform(Number), z.number().check(z.refine((n) => n >= 1 && n <= max, message))),
  )
}

/** A wait's `timeout_s` in a query: 1 to MAX_WAIT_SECONDS. */
export const waitSeconds = boundedInQuery(MAX_WAIT_SECONDS, 'seconds')

export const commentWaitQuery = z.object({
  since: z.optional(moment),
  timeout_s: z.optional(waitSeconds),
})

export const commentInPath = z.object({ id: canvasIdInPath, comment_id: anyIdInPath })
export const replyInPath = z.object({
  id: canvasIdInPath,
  comment_id: anyIdInPath,
  reply_id: anyIdInPath,
})
export const linkCommentInPath = z.object({ token: tokenInPath, comment_id: anyIdInPath })

export type CommentAnchor = z.output<typeof commentAnchor>
export type CommentsQuery = z.output<typeof commentsQuery>

export type UploadBody = z.infer<typeof uploadBody>
export type CreateCanvasBody = z.infer<typeof createCanvasBody>
export type UpdateCanvasBody = z.infer<typeof updateCanvasBody>

// What a client sends (before transforms: a share's `expires_in` is `24h` on the wire).
export type UploadRequest = z.input<typeof uploadBody>
export type CreateCanvasRequest = z.input<typeof createCanvasBody>
export type UpdateCanvasRequest = z.input<typeof updateCanvasBody>
export type CreateShareRequest = z.input<typeof createShareBody>
