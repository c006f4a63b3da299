import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { readSettings, SettingsError, type Bindings } from '../src/lib/settings'
import { call, errorOf, json, newAccount, newCanvas } from './support/api'

// Settings are read through one schema: a malformed var stops the service with its name, instead of
// quietly falling back to a default (a typo in MAX_FILE_BYTES once meant 5 GiB uploads).

const withVars = (vars: Partial<Record<keyof Bindings, string>>) =>
  ({ ...env, ...vars }) as Bindings

const refusal = (vars: Partial<Record<keyof Bindings, string>>) => {
  try {
    readSettings(withVars(vars))
  } catch (err) {
    expect(err).toBeInstanceOf(SettingsError)
    return (err as Error).message
  }
  throw new Error(`accepted ${JSON.stringify(vars)}`)
}

describe('settings', () => {
  it('reads the vars, with defaults for the unset and the empty', () => {
    const settings = readSettings(
      withVars({ TEMP_CANVAS_TTL: '', MAX_FILE_BYTES: '1024', CONTENT_URL: 'https://c.test//' }),
    )
    expect(settings).toMatchObject({
      tempCanvasTtl: 86400,
      maxFileBytes: 1024,
      contentUrl: 'https://c.test',
      signupOpen: true,
      s3: null,
    })
  })

  it('refuses each malformed value, naming the var and never echoing a secret', () => {
    const cases: [Partial<Record<keyof Bindings, string>>, string][] = [
      [{ MAX_FILE_BYTES: '5GB' }, 'MAX_FILE_BYTES must be a positive whole number'],
      [{ UPLOAD_URL_TTL: '0' }, 'UPLOAD_URL_TTL must be a positive whole number'],
      [{ TEMP_CANVAS_TTL: '-1' }, 'TEMP_CANVAS_TTL must be a positive whole number'],
      [{ DOWNLOAD_URL_TTL: '1e3' }, 'DOWNLOAD_URL_TTL must be a positive whole number'],
      [{ SIGNUP: 'yes' }, 'SIGNUP must be "open" or "closed"'],
      [{ FRAME_FETCH: 'none' }, 'FRAME_FETCH must be "any" or "own"'],
      [{ CONTENT_URL: 'usercontent.example' }, 'CONTENT_URL must be an http(s) URL'],
      [{ S3_ENDPOINT: 'ftp://r2.example' }, 'S3_ENDPOINT must be an http(s) URL'],
      [{ CSRF_SECRET: 'short-secret' }, 'CSRF_SECRET must be at least 32 characters'],
      [
        { FRAME_SIGNING_SECRET: 'x'.repeat(31) },
        'FRAME_SIGNING_SECRET must be at least 32 characters',
      ],
      [
        { WEBHOOK_ENCRYPTION_KEY: 'short-secret' },
        'WEBHOOK_ENCRYPTION_KEY must be at least 32 characters',
      ],
      [{ WEBHOOK_ALLOW_LOCAL: 'yes' }, 'WEBHOOK_ALLOW_LOCAL must be "1" or empty'],
      [{ WEBHOOK_DNS_URL: 'dns.example' }, 'WEBHOOK_DNS_URL must be an http(s) URL'],
      [
        { S3_ENDPOINT: 'https://acct.r2.cloudflarestorage.com', S3_BUCKET: 'b' },
        'S3 storage is half configured: S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY not set',
      ],
    ]
    for (const [vars, message] of cases) {
      const got = refusal(vars)
      expect(got, JSON.stringify(vars)).toContain(`server misconfigured: ${message}`)
      expect(got).not.toContain('short-secret')
    }
  })

  it('derives a key per purpose from the storage secret when CSRF_SECRET or FRAME_SIGNING_SECRET is unset', () => {
    const storage = 's'.repeat(40)
    const derived = readSettings(
      withVars({ CSRF_SECRET: '', FRAME_SIGNING_SECRET: '', STORAGE_SIGNING_SECRET: storage }),
    )
    expect([derived.csrfSecret, derived.frameSigningSecret]).toEqual([
      `csrf:${storage}`,
      `frame:${storage}`,
    ])
    const none = readSettings(
      withVars({ CSRF_SECRET: '', FRAME_SIGNING_SECRET: '', STORAGE_SIGNING_SECRET: '' }),
    )
    expect([none.csrfSecret, none.frameSigningSecret]).toEqual([null, null])
  })

  it('names the secret to set when a page needs one that no var provides', async () => {
    const account = await newAccount()
    const canvas = await newCanvas(account.key, 'no secrets')
    const bare = { CSRF_SECRET: '', FRAME_SIGNING_SECRET: '', STORAGE_SIGNING_SECRET: '' }
    const settingsPage = await call('/settings', { cookie: account.cookie, env: bare })
    expect(settingsPage.status).toBe(500)
    expect(await json(settingsPage)).toEqual(
      errorOf(
        'internal_error',
        'server misconfigured: CSRF_SECRET is not set; generate one with `openssl rand -hex 32`',
      ),
    )
    const viewer = await call(`/c/${canvas.canvas_id}`, { cookie: account.cookie, env: bare })
    expect((await json(viewer)).error.message).toMatch(
      /^server misconfigured: FRAME_SIGNING_SECRET is not set/,
    )
  })

  it('answers every request with the reason while misconfigured', async () => {
    const res = await call('/v1/me', { env: { MAX_FILE_BYTES: 'lots' } })
    expect(res.status).toBe(500)
    expect(await json(res)).toEqual(
      errorOf(
        'internal_error',
        'server misconfigured: MAX_FILE_BYTES must be a positive whole number',
      ),
    )
    const page = await call('/login', { env: { CSRF_SECRET: 'tiny' } })
    expect(page.status).toBe(500)
    expect((await json(page)).error.message).toMatch(/^server misconfigured: CSRF_SECRET/)
  })
})
