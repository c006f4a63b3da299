import * as z from 'zod/mini'
import { AUDIT_ACTIONS } from '../lib/audit'
import { EVENT_TYPES } from '../lib/events'
import { HIDDEN_CHARACTERS, shownNameProblem } from '../lib/names'
import { MAX_PUBLIC_URL_LENGTH } from '../lib/public-url'
import { MAX_SEARCH_LIMIT } from '../lib/search'
import {
  ROLES,
  anyIdInPath,
  authorFilter,
  count,
  cursor,
  duration,
  id,
  noControl,
  wholeCharacters,
  wholeNumber,
} from './requests'

// What a workspace's members send of its own resources: the workspace, its members and invites,
// its webhooks, its search and its audit log. Apart from requests.ts: only their pages and routes
// load them.

// Workspaces, members and invites (docs/teams.md). A workspace's name is read by every member and
// on every invite: the characters that let one name pass for another are refused.
// Controls are refused before trimming, which would take those at the ends away unseen.
const workspaceName = z.string().check(
  z.refine(noControl, 'must not contain control characters'),
  z.trim(),
  z.minLength(1, 'must not be empty'),
  z.maxLength(100, 'must be at most 100 characters'),
  wholeCharacters,
  z.refine((s) => shownNameProblem(s) === null, HIDDEN_CHARACTERS),
)
export const workspaceBody = z.strictObject({ name: workspaceName })
// A workspace's name and settings (admins): a new canvas's default life (a duration, or null to
// keep new canvases), and its storage quota in bytes (null: the deployment's).
export const updateWorkspaceBody = z
  .strictObject({
    name: z.optional(workspaceName),
    default_expires_in: z.optional(z.nullable(duration)),
    quota_bytes: z.optional(
      z.nullable(
        wholeNumber().check(
          z.minimum(1, 'must be at least 1'),
          z.maximum(2 ** 50, 'must be at most 2^50'),
        ),
      ),
    ),
    require_review: z.optional(z.boolean('must be true or false')),
  })
  .check(
    z.refine(
      (body) => Object.keys(body).length > 0,
      'must name at least one of name, default_expires_in, quota_bytes, require_review',
    ),
  )
const role = z.enum(ROLES, `must be one of ${ROLES.join(', ')}`)
export const roleBody = z.strictObject({ role })

const MAX_INVITE_SECONDS = 30 * 86400
export const createInviteBody = z.strictObject({
  role,
  email: z.optional(
    z.pipe(
      z
        .string()
        .check(z.trim(), z.toLowerCase(), z.maxLength(254, 'must be at most 254 characters')),
      z.email('must be an email address'),
    ),
  ),
  expires_in: z.optional(
    z.pipe(duration, z.number().check(z.maximum(MAX_INVITE_SECONDS, 'must be at most 30d'))),
  ),
})
export const switchBody = z.strictObject({ workspace_id: id })
export const workspaceInPath = z.object({ workspace_id: anyIdInPath })
export const memberInPath = z.object({ workspace_id: anyIdInPath, user_id: anyIdInPath })
export const inviteInPath = z.object({ workspace_id: anyIdInPath, invite_id: anyIdInPath })
export const inviteTokenInPath = z.object({ token: z.string() })

/** A webhook: where it is sent (its rules beyond a string's are the domain's) and which events. */
export const createWebhookBody = z.strictObject({
  url: z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(MAX_PUBLIC_URL_LENGTH, `must be at most ${MAX_PUBLIC_URL_LENGTH} characters`),
      z.refine(noControl, 'must not contain control characters'),
    ),
  events: z
    .array(z.enum(EVENT_TYPES, `must be one of ${EVENT_TYPES.join(', ')}`))
    .check(
      z.minLength(1, 'must name at least one event'),
      z.maxLength(EVENT_TYPES.length * 4, 'names too many events'),
    ),
  exclude_self: z.optional(z.boolean()),
})

// A webhook id that cannot exist is looked up as one that does not (404, not 400).
export const webhookInPath = z.object({
  webhook_id: z.pipe(
    z.string(),
    z.transform((value) => (id.safeParse(value).success ? value : '')),
  ),
})

/**
 * A search: `q`'s own rules (words, "phrases", prefix*, at most 200 characters) are the query
 * reader's (domain/search/query.ts), which says what is wrong with one.
 */
export const searchQuery = z.object({
  q: z.string().check(z.minLength(1, 'is required: the words to search for')),
  author: authorFilter,
  limit: count(1, MAX_SEARCH_LIMIT),
  cursor,
})

/** The audit log's page: newest first, filtered by action, actor (id or name) or target id. */
export const auditQuery = z.object({
  limit: count(1, 100),
  cursor,
  action: z.optional(z.enum(AUDIT_ACTIONS, `must be one of ${AUDIT_ACTIONS.join(', ')}`)),
  actor: z.optional(
    z
      .string()
      .check(
        z.minLength(1, 'must not be empty'),
        z.maxLength(254, 'must be at most 254 characters'),
        z.refine(noControl, 'must not contain control characters'),
      ),
  ),
  target: z.optional(id),
})

export type CreateWebhookRequest = z.input<typeof createWebhookBody>
