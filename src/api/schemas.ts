import * as z from 'zod'
import { SCOPES } from '../domain/keys'

// Request shapes: the single source for the Worker's validation and the CLI's types.

const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s)

export const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')
export const ext = z
  .string()
  .regex(/^[a-z0-9]{1,16}$/, 'must be 1 to 16 lowercase letters or digits, without the dot')
export const title = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .refine(noControl, 'must not contain control characters')
export const id = z.string().regex(/^[A-Za-z0-9]{1,64}$/, 'is not a valid id')
const mime = z
  .string()
  .max(255, 'must be at most 255 characters')
  .regex(/^[\w.+-]+\/[\w.+-]+(\s*;[\x20-\x7e]*)?$/, 'must be a media type such as text/html')
const rendererId = z.string().regex(/^[a-z]{1,32}$/, 'is not a renderer id')
const name = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .refine(noControl, 'must not contain control characters')

export const uploadBody = z.strictObject({
  sha256,
  ext,
  size: z.number().int('must be a whole number').min(0, 'must not be negative'),
  mime,
  file_id: id.optional(),
})

export const createCanvasBody = z.strictObject({
  file_id: id,
  title,
  ext,
  renderer_id: rendererId.optional(),
  permanent: z.boolean().optional(),
})

export const updateCanvasBody = z
  .strictObject({
    file_id: id.optional(),
    title: title.optional(),
    visibility: z.enum(['private', 'public'], 'must be private or public').optional(),
    renderer_id: rendererId.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'an update needs at least one of file_id, title, visibility, renderer_id',
  })

const count = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .optional()
    .transform((n) => n ?? fallback)

export const listQuery = z.object({
  visibility: z.enum(['private', 'public'], 'must be private or public').optional(),
  ext: ext.optional(),
  limit: count(1, 100, 20),
  offset: count(0, 1_000_000_000, 0),
})

export const downloadQuery = z.object({
  dl: z.enum(['0', '1', 'true', 'false'], 'must be 1 or 0').optional(),
})

export const versionParam = z
  .string()
  .regex(/^[1-9]\d{0,8}$/, 'must be a positive whole number')
  .transform(Number)

export const credentialsBody = z.strictObject({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, 'must be at most 254 characters')
    .pipe(z.email('must be an email address')),
  password: z
    .string()
    .min(8, 'must be at least 8 characters')
    .max(256, 'must be at most 256 characters'),
})

export const loginBody = z.strictObject({
  email: z.string().max(254, 'must be at most 254 characters'),
  password: z.string().max(256, 'must be at most 256 characters'),
})

export const createKeyBody = z.strictObject({
  name,
  scopes: z
    .array(z.enum(SCOPES, 'must be read or write'))
    .min(1, 'must name at least one scope')
    .optional(),
})

export type UploadBody = z.infer<typeof uploadBody>
export type CreateCanvasBody = z.infer<typeof createCanvasBody>
export type UpdateCanvasBody = z.infer<typeof updateCanvasBody>

const DURATION_UNITS = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 } as const
const MAX_SHARE_SECONDS = 365 * 86400

/** `30m`, `24h`, `7d`: a positive count and a unit (s, m, h, d, w); at most 365 days. */
export const duration = z
  .string()
  .regex(/^[1-9]\d{0,8}[smhdw]$/, 'must be a duration such as 30m, 24h or 7d (units s, m, h, d, w)')
  .transform((value) => Number(value.slice(0, -1)) * DURATION_UNITS[value.slice(-1) as 's'])
  .pipe(z.number().max(MAX_SHARE_SECONDS, 'must be at most 365d'))

export const shareToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8 to 64 letters, digits, _ or -')

export const createShareBody = z.strictObject({
  expires_in: duration.optional(),
  password: z
    .string()
    .min(4, 'must be at least 4 characters')
    .max(256, 'must be at most 256 characters')
    .optional(),
  max_views: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1_000_000, 'must be at most 1000000')
    .optional(),
  version: z.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
  token: shareToken.optional(),
})
