import * as z from 'zod/mini'
import { MAX_SEARCH_LIMIT } from '../lib/search'
import {
  authorFilter,
  COMMENT_STATUSES,
  IDEMPOTENCY_KEY,
  commentAnchor,
  createShareFields,
  cursorToken,
  ext,
  id,
  itemPath,
  itemPathLookup,
  MAX_WAIT_SECONDS,
  rendererId,
  replyBody,
  title,
  updateCanvasFields,
  versionNumber,
  visibility,
} from './requests'
import { reviewNote, reviewerList } from './review-requests'
import { MAX_VIEW_DAYS } from '../lib/views'

// The inputs of the MCP tools: the API's own field rules, with words for a model to read. Each is
// validated here and listed to clients as the JSON Schema generated from it.

const says = <S extends z.ZodMiniType>(schema: S, description: string) =>
  schema.check(z.describe(description)) as S

const canvasId = says(id, 'The canvas id, as publish or list_canvases answered it.')

/** A whole number from 1 to `max`: a page's size, a period's days. */
const oneTo = (max: number) =>
  z.int().check(z.minimum(1, 'must be at least 1'), z.maximum(max, `must be at most ${max}`))

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const base64 = z.string().check(z.regex(BASE64, 'must be base64'))

/** One file of a site being published: its path and its content, as text or base64. */
const siteFile = z
  .strictObject({
    path: says(itemPath, 'Its path in the site, relative: index.html, css/site.css, img/a.png.'),
    content: z.optional(says(z.string(), 'Its content as text (UTF-8).')),
    content_base64: z.optional(says(base64, 'Its content, base64-encoded (binary files).')),
  })
  .check(
    z.refine(
      (f) => (f.content === undefined) !== (f.content_base64 === undefined),
      'give exactly one of content and content_base64',
    ),
  )

/** On every tool that changes something: a retry with the same key does nothing twice. */
const once = {
  idempotency_key: z.optional(
    says(
      z.string().check(z.regex(IDEMPOTENCY_KEY, 'must be 1 to 255 printable ASCII characters')),
      'A new random string (such as a UUID) for this operation. Calling again with the same key ' +
        'and arguments returns the first result and changes nothing twice: safe to retry.',
    ),
  ),
}

export const publishInput = z
  .strictObject({
    content: z.optional(says(z.string(), 'The file’s content as text (UTF-8).')),
    content_base64: z.optional(
      says(base64, 'The file’s content, base64-encoded: for binary files such as images or PDFs.'),
    ),
    filename: z.optional(
      says(
        title,
        'The file name (with content): its extension chooses how the page is shown: .html, .md, .mmd, .ipynb, .csv, .json, .svg, .pdf, images, code files, ...',
      ),
    ),
    files: z.optional(
      says(
        z
          .array(siteFile)
          .check(
            z.minLength(1, 'must hold at least one file'),
            z.maxLength(200, 'must hold at most 200 files'),
          ),
        'Instead of content: several files published as one site (an HTML report with its ' +
          'stylesheet, scripts, images and data), each at its relative path, so links between ' +
          'them work. At most 200 files and the direct upload limit in all.',
      ),
    ),
    main: z.optional(
      says(
        itemPath,
        'With files: the path shown first (default index.html when present, else the first file).',
      ),
    ),
    title: z.optional(says(title, 'A title for people; the file name when left out.')),
    canvas_id: z.optional(
      says(id, 'Publish a new version of this canvas instead of a new canvas.'),
    ),
    permanent: z.optional(
      says(
        z.boolean(),
        'true keeps it; false makes it expire after the server’s temporary time; left out, the workspace’s default (temporary unless its admins keep new canvases).',
      ),
    ),
    visibility: z.optional(
      says(visibility, '`public`: anyone with the page URL sees it. Default `private`.'),
    ),
    ...once,
  })
  .check(
    z.refine(
      (input) =>
        [input.content, input.content_base64, input.files].filter((v) => v !== undefined).length ===
        1,
      'give exactly one of content, content_base64 and files',
    ),
    z.refine(
      (input) => (input.files === undefined) === (input.filename !== undefined),
      'filename: goes with content or content_base64 (each of files has its own path)',
    ),
    z.refine(
      (input) => input.files !== undefined || input.main === undefined,
      'main: only goes with files',
    ),
  )

/** Who published them, for a tool's filter. */
const authorInput = z.optional(
  says(authorFilter, 'Only canvases published by this member: `me`, their email or user id.'),
)

export const listCanvasesInput = z
  .strictObject({
    visibility: z.optional(visibility),
    ext: z.optional(says(ext, 'Only canvases of this file extension, such as md.')),
    author: authorInput,
    limit: z.optional(says(oneTo(100), 'At most this many, newest first (default 20).')),
    offset: z.optional(
      says(z.int().check(z.minimum(0, 'must not be negative')), 'Skip this many (default 0).'),
    ),
    cursor: z.optional(
      says(
        cursorToken,
        'The next_cursor of the page before, for the next page (costs the same at any depth); not with offset.',
      ),
    ),
  })
  .check(
    z.refine(
      (input) => input.cursor === undefined || input.offset === undefined,
      'cursor: give either cursor or offset, not both',
    ),
  )

export const canvasInput = z.strictObject({ canvas_id: canvasId })

const query = says(
  z.string(),
  'Words to find in canvases’ titles and text: every word must be there; "a phrase" in quotes; ' +
    'prefix* for words that start so. At most 200 characters.',
)

export const searchCanvasesInput = z.strictObject({
  query,
  author: authorInput,
  limit: z.optional(
    says(oneTo(MAX_SEARCH_LIMIT), 'At most this many, best match first (default 10).'),
  ),
  cursor: z.optional(says(cursorToken, 'The next_cursor of the page before, for the next page.')),
})

/** ChatGPT's connectors' `search`: a query alone. */
export const searchInput = z.strictObject({ query })

/** ChatGPT's connectors' `fetch`: a result's `id`. */
export const fetchInput = z.strictObject({
  id: says(id, 'A canvas id, as search or search_canvases answered it.'),
})

export const changeCanvasInput = z.strictObject({ canvas_id: canvasId, ...once })

export const readCanvasInput = z.strictObject({
  canvas_id: canvasId,
  version: z.optional(says(versionNumber, 'This version rather than the latest.')),
  path: z.optional(
    says(
      itemPathLookup,
      'For a site: the file at this path (such as data/table.csv) rather than its main file.',
    ),
  ),
})

export const updateCanvasInput = z
  .strictObject({
    canvas_id: canvasId,
    title: updateCanvasFields.title,
    visibility: updateCanvasFields.visibility,
    renderer_id: z.optional(says(rendererId, 'How to show it; see the renderers of usage.')),
    ...once,
  })
  .check(
    z.refine(
      (input) => [input.title, input.visibility, input.renderer_id].some((v) => v !== undefined),
      'an update needs at least one of title, visibility, renderer_id (new content: publish)',
    ),
  )

export const shareCanvasInput = z.strictObject({
  canvas_id: canvasId,
  expires_in: z.optional(says(createShareFields.expires_in.def.innerType, 'Such as 24h or 7d.')),
  password: z.optional(
    says(createShareFields.password.def.innerType, 'Viewers must give this password.'),
  ),
  max_views: z.optional(
    says(createShareFields.max_views.def.innerType, 'The link stops after this many views.'),
  ),
  version: z.optional(says(versionNumber, 'Pin the link to this version.')),
  token: z.optional(says(createShareFields.token.def.innerType, 'Choose the link’s token.')),
  allow_comments: z.optional(
    says(
      createShareFields.allow_comments.def.innerType,
      'Let the link’s readers read and add comments under a name they give (no account); ' +
        'list_comments reads them.',
    ),
  ),
  ...once,
})

export const revokeSharesInput = z.strictObject({
  canvas_id: canvasId,
  token: z.optional(
    says(createShareFields.token.def.innerType, 'Only this link; every link when left out.'),
  ),
  ...once,
})

/** The most replacements one edit_canvas call may make: each is a pass over the whole text. */
export const MAX_EDITS = 50

export const editCanvasInput = z.strictObject({
  canvas_id: canvasId,
  edits: says(
    z
      .array(
        z.strictObject({
          old: says(
            z.string().check(z.minLength(1, 'must not be empty')),
            'The exact text to replace, as it stands once the edits before this one are made. ' +
              'It must occur exactly once: include enough of the text around it.',
          ),
          new: says(z.string(), 'The text that takes its place (empty to delete it).'),
        }),
      )
      .check(
        z.minLength(1, 'must hold at least one edit'),
        z.maxLength(MAX_EDITS, `must hold at most ${MAX_EDITS} edits`),
      ),
    'Literal replacements (no patterns), applied in order, each to the result of the one before.',
  ),
  path: z.optional(
    says(
      itemPathLookup,
      'For a site: the file to edit (such as css/site.css); its main file when left out.',
    ),
  ),
  ...once,
})

export const noInput = z.strictObject({})

// Comments: an agent reads what people said, answers in a new version, replies and resolves.

const commentId = says(id, 'The comment id, as list_comments answered it.')
const commentText = says(
  replyBody.shape.body,
  'Markdown, at most 10,000 characters. Signed with this app’s or key’s name, as an agent.',
)

export const listCommentsInput = z.strictObject({
  canvas_id: canvasId,
  status: z.optional(
    says(
      z.enum(COMMENT_STATUSES, 'must be open, resolved or all'),
      'Which comments: open (the default: those still to act on), resolved, or all.',
    ),
  ),
  version: z.optional(says(versionNumber, 'Only those made on this version.')),
})

/** How long a wait (for comments, for a review) holds on. */
const waitTimeout = z.optional(
  says(
    z.int().check(z.minimum(1), z.maximum(MAX_WAIT_SECONDS)),
    `How long to wait, in seconds (default 30, at most ${MAX_WAIT_SECONDS}).`,
  ),
)

export const waitForCommentsInput = z.strictObject({
  canvas_id: canvasId,
  since: z.optional(
    says(
      z.iso.datetime(),
      'Only what was made after this time (an answer’s `since`); default: from now.',
    ),
  ),
  timeout_s: waitTimeout,
})

export const addCommentInput = z.strictObject({
  canvas_id: canvasId,
  body: commentText,
  anchor: z.optional(
    says(
      commentAnchor,
      'Where it points: {"quote": {"exact": "text of the content"}} (with optional prefix and ' +
        'suffix when the text occurs more than once) or {"point": {"x": 0.5, "y": 0.2}} ' +
        '(fractions of its width and height). Left out: the canvas as a whole.',
    ),
  ),
  version: z.optional(says(versionNumber, 'The version it is about (default: the latest).')),
  ...once,
})

export const replyCommentInput = z.strictObject({
  canvas_id: canvasId,
  comment_id: commentId,
  body: commentText,
  ...once,
})

export const commentActionInput = z.strictObject({
  canvas_id: canvasId,
  comment_id: commentId,
  ...once,
})

// Reviews: an agent asks people to approve a version before the readers of what follows approval
// see it, and waits for their decision (docs/reviews.md).

const reviewId = says(id, 'The review id, as request_review answered it.')

export const requestReviewInput = z.strictObject({
  canvas_id: canvasId,
  version: z.optional(says(versionNumber, 'The version to review (default: the latest).')),
  reviewers: z.optional(
    says(
      reviewerList,
      'Members who decide, by email or user id; left out, any editor may approve.',
    ),
  ),
  note: z.optional(says(reviewNote, 'What to look at, for the reviewers.')),
})

export const reviewInput = z.strictObject({ review_id: reviewId })

export const waitForReviewInput = z.strictObject({
  review_id: reviewId,
  timeout_s: waitTimeout,
})

export const viewsInput = z.strictObject({
  canvas_id: canvasId,
  days: z.optional(
    says(
      oneTo(MAX_VIEW_DAYS),
      `Days back, today among them (default 30, at most ${MAX_VIEW_DAYS}).`,
    ),
  ),
})
