// Bindings and settings. Wrangler vars arrive as strings; they are parsed once per env object.

export type Bindings = {
  DB: D1Database
  BUCKET: R2Bucket
  API_LIMITER?: RateLimit
  AUTH_LIMITER?: RateLimit
  PUBLIC_LIMITER?: RateLimit
  SHARE_PASSWORD_LIMITER?: RateLimit
  FRAME_LIMITER?: RateLimit
  TEMP_CANVAS_TTL?: string
  MAX_DIRECT_UPLOAD_BYTES?: string
  MAX_FILE_BYTES?: string
  UPLOAD_URL_TTL?: string
  DOWNLOAD_URL_TTL?: string
  SIGNUP?: string
  CONTENT_URL?: string
  S3_ENDPOINT?: string
  S3_BUCKET?: string
  S3_REGION?: string
  S3_ACCESS_KEY_ID?: string
  S3_SECRET_ACCESS_KEY?: string
  STORAGE_SIGNING_SECRET?: string
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
  maxDirectUploadBytes: number
  maxFileBytes: number
  uploadUrlTtl: number
  downloadUrlTtl: number
  signupOpen: boolean
  contentUrl: string | null
  s3: S3Settings | null
  storageSigningSecret: string | null
}

const cache = new WeakMap<object, Settings>()

export function readSettings(env: Bindings): Settings {
  let settings = cache.get(env)
  if (!settings) {
    settings = parseSettings(env)
    cache.set(env, settings)
  }
  return settings
}

function parseSettings(env: Bindings): Settings {
  const s3Complete =
    env.S3_ENDPOINT && env.S3_BUCKET && env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
  return {
    tempCanvasTtl: positiveInt(env.TEMP_CANVAS_TTL, 86400),
    maxDirectUploadBytes: positiveInt(env.MAX_DIRECT_UPLOAD_BYTES, 10 * 1024 * 1024),
    maxFileBytes: positiveInt(env.MAX_FILE_BYTES, 5 * 1024 * 1024 * 1024),
    uploadUrlTtl: positiveInt(env.UPLOAD_URL_TTL, 900),
    downloadUrlTtl: positiveInt(env.DOWNLOAD_URL_TTL, 300),
    signupOpen: env.SIGNUP === 'open',
    contentUrl: env.CONTENT_URL ? env.CONTENT_URL.replace(/\/+$/, '') : null,
    s3: s3Complete
      ? {
          endpoint: env.S3_ENDPOINT!.replace(/\/+$/, ''),
          bucket: env.S3_BUCKET!,
          region: env.S3_REGION || 'auto',
          accessKeyId: env.S3_ACCESS_KEY_ID!,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
        }
      : null,
    storageSigningSecret: env.STORAGE_SIGNING_SECRET || null,
  }
}

// A mistyped var falls back to the default instead of silently becoming NaN or 0.
function positiveInt(value: string | undefined, fallback: number): number {
  if (!value) return fallback
  const n = Number(value)
  return Number.isSafeInteger(n) && n > 0 ? n : fallback
}
