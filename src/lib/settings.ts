import * as z from 'zod/mini'

// Bindings come from `npm run cf-typegen` (wrangler types, worker-configuration.d.ts). Vars arrive
// as strings; they are read through one schema, once per env object, and a malformed value stops
// the service with a message naming it, instead of falling back to a default nobody asked for.

// The optional secrets are not in .dev.vars.example as names to fill in (the Deploy to Cloudflare
// button would ask for them), so they are typed here.
export type Bindings = Env & {
  S3_ACCESS_KEY_ID?: string
  S3_SECRET_ACCESS_KEY?: string
  OIDC_CLIENT_SECRET?: string
}

export type S3Settings = {
  endpoint: string
  bucket: string
  region: string
  accessKeyId: string
  secretAccessKey: string
}

export type Settings = {
  tempCanvasTtl: number
  /** How long the audit log keeps an event. */
  auditRetentionDays: number
  /** Whether people's reads are counted (docs/readership.md); VIEW_ANALYTICS=off counts none. */
  viewAnalytics: boolean
  /** How many days a canvas's counts of reads are kept, by day. */
  viewRetentionDays: number
  /** How long an isolate gathers reads before it hands them to their canvases' objects. */
  viewGatherMs: number
  /** The bytes a workspace may store unless its own setting says otherwise; null: unlimited. */
  workspaceQuotaBytes: number | null
  maxDirectUploadBytes: number
  maxFileBytes: number
  /** Files a version of a site may hold. */
  maxSiteItems: number
  /** Bytes of archives one anonymous client may download in an hour. */
  publicArchiveBytesPerHour: number
  uploadUrlTtl: number
  downloadUrlTtl: number
  signupOpen: boolean
  /** The service's own address, when configured: the one named in what it says of itself. */
  appUrl: string | null
  contentUrl: string | null
  /**
   * Where a content frame may fetch from: `any` host (images, media, a page's scripts), or `own`,
   * the deployment's own content origin and its storage alone (FRAME_FETCH).
   */
  frameFetch: 'any' | 'own'
  s3: S3Settings | null
  storageSigningSecret: string | null
  /** Null when no secret at all is set: signed-in forms then answer 500, naming CSRF_SECRET. */
  csrfSecret: string | null
  /** Null when no secret at all is set: viewer pages then answer 500, naming the var. */
  frameSigningSecret: string | null
  /** What the first account's creation needs; null: only from the machine itself (local). */
  setupToken: string | null
  /** Encrypts webhooks' signing secrets in D1; null: webhooks cannot be made, naming the var. */
  webhookEncryptionKey: string | null
  /** Webhooks may call http and loopback addresses: local testing only, never in production. */
  webhookAllowLocal: boolean
  /** The DNS-over-HTTPS resolver (JSON API) asked where a webhook's name points. */
  webhookDnsUrl: string
  /** Signing in by the team's identity provider (domain/sso); null: not configured. */
  sso: SsoSettings
}

/** Cloudflare Access in front of the service: its team domain and the application's audience. */
export type AccessSettings = { teamDomain: string; audience: string }

/** An OpenID Connect provider: where it is, this service's client there, and its button's name. */
export type OidcSettings = { issuer: string; clientId: string; clientSecret: string; name: string }

export type SsoSettings = {
  access: AccessSettings | null
  oidc: OidcSettings | null
  /** The email domains SSO admits; null: whoever the provider authenticates. */
  domains: string[] | null
  /** The workspace SSO newcomers join on their first sign-in, and their role there. */
  workspace: { workspaceId: string; role: 'admin' | 'editor' | 'viewer' } | null
  /** False when PASSWORD_LOGIN=off and SSO is configured: sign-in is by SSO only. */
  passwordLogin: boolean
}

/** A var that cannot be used as given; the message names the var, never its value. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(`server misconfigured: ${message}`)
    this.name = 'SettingsError'
  }
}

// Secrets sign cookies' CSRF tokens, frame URLs and storage URLs: guessable ones would sign nothing.
const MIN_SECRET_LENGTH = 32
const GENERATE = 'generate one with `openssl rand -hex 32`'

// Empty means unset: wrangler.jsonc lists optional vars with "" so that every name is documented.
const unset = (value: string | undefined) => value === undefined || value === ''

const count = (fallback: number) =>
  z.pipe(
    z.optional(z.string().check(z.regex(/^([1-9]\d{0,14})?$/, 'must be a positive whole number'))),
    z.transform((value) => (unset(value) ? fallback : Number(value))),
  )

/** A positive whole number, or null when unset. */
const optionalCount = z.pipe(
  z.optional(z.string().check(z.regex(/^([1-9]\d{0,15})?$/, 'must be a positive whole number'))),
  z.transform((value) => (unset(value) ? null : Number(value))),
)

const baseUrl = z.pipe(
  z.optional(
    z
      .string()
      .check(z.refine((value) => unset(value) || isHttpUrl(value), 'must be an http(s) URL')),
  ),
  z.transform((value) => (unset(value) ? null : value!.replace(/\/+$/, ''))),
)

const optionalText = z.pipe(
  z.optional(z.string()),
  z.transform((value) => (unset(value) ? null : value!)),
)

const optionalSecret = z.pipe(
  z.optional(
    z
      .string()
      .check(
        z.refine(
          (value) => unset(value) || value.length >= MIN_SECRET_LENGTH,
          `must be at least ${MIN_SECRET_LENGTH} characters; ${GENERATE}`,
        ),
      ),
  ),
  z.transform((value) => (unset(value) ? null : value!)),
)

/**
 * An identity provider's address: https, or http on a loopback host only (a provider run beside
 * the service in tests); without a trailing slash, as its tokens name it.
 */
const providerUrl = z.pipe(
  z.optional(
    z
      .string()
      .check(
        z.refine(
          (value) => unset(value) || isProviderUrl(value),
          'must be an https URL (http only for 127.0.0.1 or localhost)',
        ),
      ),
  ),
  z.transform((value) => (unset(value) ? null : value!.replace(/\/+$/, ''))),
)

function isProviderUrl(value: string): boolean {
  try {
    const url = new URL(value)
    if (url.protocol === 'https:') return true
    return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  } catch {
    return false
  }
}

function isHttpUrl(value: string): boolean {
  try {
    return /^https?:$/.test(new URL(value).protocol)
  } catch {
    return false
  }
}

const schema = z.object({
  TEMP_CANVAS_TTL: count(86400),
  AUDIT_RETENTION_DAYS: count(365),
  VIEW_ANALYTICS: z.optional(z.enum(['', 'on', 'off'], 'must be "on" or "off"')),
  VIEW_RETENTION_DAYS: count(400),
  VIEW_GATHER_MS: count(1000),
  WORKSPACE_QUOTA_BYTES: optionalCount,
  MAX_DIRECT_UPLOAD_BYTES: count(10 * 1024 * 1024),
  MAX_FILE_BYTES: count(5 * 1024 * 1024 * 1024),
  MAX_SITE_ITEMS: count(1000),
  PUBLIC_ARCHIVE_BYTES_PER_HOUR: count(2 * 1024 * 1024 * 1024),
  UPLOAD_URL_TTL: count(900),
  DOWNLOAD_URL_TTL: count(300),
  SIGNUP: z.optional(z.enum(['', 'open', 'closed'], 'must be "open" or "closed"')),
  APP_URL: baseUrl,
  CONTENT_URL: baseUrl,
  S3_ENDPOINT: baseUrl,
  S3_BUCKET: optionalText,
  S3_REGION: optionalText,
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  // Any length, as before it had a rule: a deployment's existing secret keeps working.
  STORAGE_SIGNING_SECRET: optionalText,
  CSRF_SECRET: optionalSecret,
  FRAME_SIGNING_SECRET: optionalSecret,
  SETUP_TOKEN: optionalSecret,
  WEBHOOK_ENCRYPTION_KEY: optionalSecret,
  WEBHOOK_DNS_URL: baseUrl,
  WEBHOOK_ALLOW_LOCAL: z.optional(z.enum(['', '0', '1'], 'must be "1" or empty')),
  ACCESS_TEAM_DOMAIN: providerUrl,
  ACCESS_AUD: optionalText,
  OIDC_ISSUER: providerUrl,
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_NAME: optionalText,
  SSO_DOMAINS: z.pipe(
    z.optional(
      z
        .string()
        .check(
          z.regex(
            /^\s*([a-z0-9.-]+\.[a-z]{2,}\s*(,\s*[a-z0-9.-]+\.[a-z]{2,}\s*)*)?$/i,
            'must be email domains separated by commas (example.com,example.org)',
          ),
        ),
    ),
    z.transform((value) =>
      unset(value?.trim()) ? null : value!.split(',').map((d) => d.trim().toLowerCase()),
    ),
  ),
  SSO_WORKSPACE: z.pipe(
    z.optional(
      z
        .string()
        .check(
          z.regex(
            /^([A-Za-z0-9_-]{1,64}:(admin|editor|viewer))?$/,
            'must be <workspace_id>:<role>, the role admin, editor or viewer',
          ),
        ),
    ),
    z.transform((value) => {
      if (unset(value)) return null
      const [workspaceId, role] = value!.split(':') as [string, 'admin' | 'editor' | 'viewer']
      return { workspaceId, role }
    }),
  ),
  PASSWORD_LOGIN: z.optional(z.enum(['', 'on', 'off'], 'must be "on" or "off"')),
  FRAME_FETCH: z.optional(z.enum(['', 'any', 'own'], 'must be "any" or "own"')),
})

const cache = new WeakMap<object, Settings>()

/** The settings of this env; throws SettingsError when a var is malformed. */
export function readSettings(env: Bindings): Settings {
  let settings = cache.get(env)
  if (!settings) {
    settings = parseSettings(env)
    cache.set(env, settings)
  }
  return settings
}

function parseSettings(env: Bindings): Settings {
  const parsed = schema.safeParse(env)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const name = String(issue.path[0])
    throw new SettingsError(`${name} ${issue.message}`)
  }
  const vars = parsed.data
  return {
    tempCanvasTtl: vars.TEMP_CANVAS_TTL,
    auditRetentionDays: vars.AUDIT_RETENTION_DAYS,
    viewAnalytics: vars.VIEW_ANALYTICS !== 'off',
    viewRetentionDays: vars.VIEW_RETENTION_DAYS,
    viewGatherMs: vars.VIEW_GATHER_MS,
    workspaceQuotaBytes: vars.WORKSPACE_QUOTA_BYTES,
    maxDirectUploadBytes: vars.MAX_DIRECT_UPLOAD_BYTES,
    maxFileBytes: vars.MAX_FILE_BYTES,
    maxSiteItems: vars.MAX_SITE_ITEMS,
    publicArchiveBytesPerHour: vars.PUBLIC_ARCHIVE_BYTES_PER_HOUR,
    uploadUrlTtl: vars.UPLOAD_URL_TTL,
    downloadUrlTtl: vars.DOWNLOAD_URL_TTL,
    signupOpen: vars.SIGNUP === 'open',
    appUrl: vars.APP_URL,
    contentUrl: vars.CONTENT_URL,
    frameFetch: vars.FRAME_FETCH === 'own' ? 'own' : 'any',
    s3: s3Settings(vars),
    storageSigningSecret: vars.STORAGE_SIGNING_SECRET,
    csrfSecret: vars.CSRF_SECRET ?? derivedSecret('csrf', vars),
    frameSigningSecret: vars.FRAME_SIGNING_SECRET ?? derivedSecret('frame', vars),
    setupToken: vars.SETUP_TOKEN,
    webhookEncryptionKey: vars.WEBHOOK_ENCRYPTION_KEY,
    webhookAllowLocal: vars.WEBHOOK_ALLOW_LOCAL === '1',
    webhookDnsUrl: vars.WEBHOOK_DNS_URL ?? 'https://cloudflare-dns.com/dns-query',
    sso: ssoSettings(vars),
  }
}

// Each provider all or nothing, as S3's credentials: half of one would fail at a person's sign-in.
function ssoSettings(vars: Vars): SsoSettings {
  const access = allOrNone('Cloudflare Access', {
    ACCESS_TEAM_DOMAIN: vars.ACCESS_TEAM_DOMAIN,
    ACCESS_AUD: vars.ACCESS_AUD,
  })
  const oidc = allOrNone('OpenID Connect', {
    OIDC_ISSUER: vars.OIDC_ISSUER,
    OIDC_CLIENT_ID: vars.OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: vars.OIDC_CLIENT_SECRET,
  })
  const configured = Boolean(access || oidc)
  return {
    access: access && { teamDomain: access.ACCESS_TEAM_DOMAIN, audience: access.ACCESS_AUD },
    oidc: oidc && {
      issuer: oidc.OIDC_ISSUER,
      clientId: oidc.OIDC_CLIENT_ID,
      clientSecret: oidc.OIDC_CLIENT_SECRET,
      name: vars.OIDC_NAME ?? 'single sign-on',
    },
    domains: vars.SSO_DOMAINS,
    workspace: vars.SSO_WORKSPACE,
    // Off only once there is another way in: a deployment is never left with no sign-in at all.
    passwordLogin: !(configured && vars.PASSWORD_LOGIN === 'off'),
  }
}

function allOrNone<K extends string>(
  what: string,
  parts: Record<K, string | null>,
): Record<K, string> | null {
  const missing = Object.entries(parts).filter(([, value]) => value === null)
  if (missing.length === Object.keys(parts).length) return null
  if (missing.length > 0) {
    const names = missing.map(([name]) => name).join(', ')
    throw new SettingsError(`${what} is half configured: ${names} not set`)
  }
  return parts as Record<K, string>
}

type Vars = z.output<typeof schema>

/**
 * A deployment made before CSRF_SECRET and FRAME_SIGNING_SECRET existed keeps working: their keys
 * are then derived from the storage secret, one per purpose, so a signature made for one purpose
 * never holds for another. Setting the var gives the purpose a key of its own, rotated on its own.
 */
function derivedSecret(purpose: 'csrf' | 'frame', vars: Vars): string | null {
  const base = vars.STORAGE_SIGNING_SECRET ?? vars.S3_SECRET_ACCESS_KEY
  return base ? `${purpose}:${base}` : null
}

/** A purpose's secret, or the settings error that names the var to set. */
export function secretFor(
  name: 'CSRF_SECRET' | 'FRAME_SIGNING_SECRET' | 'WEBHOOK_ENCRYPTION_KEY',
  value: string | null,
) {
  if (value) return value
  throw new SettingsError(`${name} is not set; ${GENERATE}`)
}

// All four or none: half a set of credentials would fail at the first upload, far from its cause.
function s3Settings(vars: Vars): S3Settings | null {
  const parts = {
    S3_ENDPOINT: vars.S3_ENDPOINT,
    S3_BUCKET: vars.S3_BUCKET,
    S3_ACCESS_KEY_ID: vars.S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: vars.S3_SECRET_ACCESS_KEY,
  }
  const missing = Object.entries(parts).filter(([, value]) => value === null)
  if (missing.length === 4) return null
  if (missing.length > 0) {
    const names = missing.map(([name]) => name).join(', ')
    throw new SettingsError(`S3 storage is half configured: ${names} not set`)
  }
  return {
    endpoint: parts.S3_ENDPOINT!,
    bucket: parts.S3_BUCKET!,
    region: vars.S3_REGION ?? 'auto',
    accessKeyId: parts.S3_ACCESS_KEY_ID!,
    secretAccessKey: parts.S3_SECRET_ACCESS_KEY!,
  }
}
