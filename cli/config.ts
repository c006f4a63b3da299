import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { NO_SERVED_ENDPOINT } from '../src/lib/cli-package'
import { CliError } from './errors'

// ~/.svc/config.json (dir 0700, file 0600). Precedence: flag > environment > file > defaults.

declare const __SERVED_ENDPOINT__: string | undefined

/**
 * The deployment this copy came from: the package a deployment serves (`GET /cli/svc.tgz`) has its
 * address written in place of the marker the build leaves here (scripts/cli-package.mjs), or
 * NO_SERVED_ENDPOINT when the deployment could not tell its address safely (null: none, ask for
 * one). A copy built from the repository keeps the marker (undefined: the local service).
 */
export function servedEndpoint(placeholder: string | undefined): string | null | undefined {
  const value = (placeholder ?? '').trim()
  if (value === NO_SERVED_ENDPOINT) return null
  return /^https?:\/\/[^\s'"\\]+$/.test(value) ? value : undefined
}

const served = servedEndpoint(
  typeof __SERVED_ENDPOINT__ === 'string' ? __SERVED_ENDPOINT__ : undefined,
)

/** The endpoint when none is given: the deployment this copy came from, or the local service. */
export const DEFAULT_URL: string | null = served === undefined ? 'http://127.0.0.1:8787' : served

export type StoredConfig = {
  api_key?: string
  /**
   * How the key came: the CLI's own sign-in (browser or device), which `svc logout` revokes, or
   * given to it (`--token`, `--paste`), which logout only forgets: it may serve elsewhere (CI).
   */
  key_source?: 'sign-in' | 'given'
  endpoint?: string
  web_url?: string
}

export type Settings = {
  apiKey?: string
  endpoint: string
  webUrl: string
  /** Where each value came from, for `svc status` and `svc config show`. */
  sources: { endpoint: Source; webUrl: Source; apiKey: Source }
}

/**
 * Where a setting came from: a flag, an environment variable, the config file (`name`: the flag,
 * the variable, the file's path), the built-in default, the endpoint in use (a web URL), or
 * nowhere (no key). `detail`: why a value that was there was passed over.
 */
export type Source = {
  from: 'flag' | 'env' | 'config' | 'default' | 'endpoint' | 'none'
  name: string | null
  detail?: string
}

export const configDir = () => join(homedir(), '.svc')
export const configPath = () => join(configDir(), 'config.json')

export function ensureConfigDir(): string {
  const dir = configDir()
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  return dir
}

export function readConfig(): StoredConfig {
  const path = configPath()
  if (!existsSync(path)) return {}
  try {
    const value = JSON.parse(readFileSync(path, 'utf8'))
    return value && typeof value === 'object' ? value : {}
  } catch {
    throw new CliError(`${path} is not valid JSON; fix or delete it`, 'config_invalid')
  }
}

/** Written to a temporary file first, so a crash never leaves a half-written config. */
export function writeConfig(config: StoredConfig) {
  ensureConfigDir()
  const path = configPath()
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 })
  chmodSync(temp, 0o600)
  renameSync(temp, path)
}

/**
 * The key, the endpoint in use and the web URL links are printed with, each with where it came
 * from. The web URL is the one given (flag, CANVAS_WEB_URL), else the config's when the endpoint in
 * use is the config's own (a web URL saved for another deployment would be a dead link), else the
 * endpoint in use: one Worker serves the API and the pages.
 */
export function resolveSettings(flags: { endpoint?: string; webUrl?: string } = {}): Settings {
  const file = readConfig()
  const env = process.env
  const inFile: Source = { from: 'config', name: configPath() }
  const [rawEndpoint, endpointSource] = first([
    [flags.endpoint, { from: 'flag', name: '--endpoint' }],
    [env.CANVAS_ENDPOINT, { from: 'env', name: 'CANVAS_ENDPOINT' }],
    [file.endpoint, inFile],
    [DEFAULT_URL ?? undefined, { from: 'default', name: null }],
  ])
  if (!rawEndpoint) {
    throw new CliError(
      'no endpoint: this svc came from a deployment that did not name its address; run ' +
        'svc login --endpoint <its web address>, or set CANVAS_ENDPOINT',
      'usage',
    )
  }
  const endpoint = normalizeUrl(rawEndpoint, nameOf('endpoint', endpointSource))
  const savedFor = file.endpoint || DEFAULT_URL || endpoint
  const saved = file.web_url && sameUrl(savedFor, endpoint) ? file.web_url : undefined
  const [rawWebUrl, webUrlSource] = first([
    [flags.webUrl, { from: 'flag', name: '--web-url' }],
    [env.CANVAS_WEB_URL, { from: 'env', name: 'CANVAS_WEB_URL' }],
    [saved, inFile],
    [endpoint, { from: 'endpoint', name: null }],
  ])
  if (file.web_url && !saved && webUrlSource.from === 'endpoint') {
    webUrlSource.detail = `the config's web_url is for ${savedFor}`
  }
  const [apiKey, apiKeySource] = first([
    [env.CANVAS_API_KEY, { from: 'env', name: 'CANVAS_API_KEY' }],
    [file.api_key, inFile],
    [undefined, { from: 'none', name: null }],
  ])
  return {
    apiKey,
    endpoint,
    webUrl: normalizeUrl(rawWebUrl!, nameOf('web_url', webUrlSource)),
    sources: { endpoint: endpointSource, webUrl: webUrlSource, apiKey: apiKeySource },
  }
}

/** The first value given (an empty one is not), with its source. */
function first(choices: [string | undefined, Source][]): [string | undefined, Source] {
  const found = choices.find(([value]) => value) ?? choices[choices.length - 1]
  return [found[0] || undefined, { ...found[1] }]
}

/** A setting named as the person gave it, so that a bad value's error says where to fix it. */
function nameOf(setting: string, source: Source): string {
  if (source.from === 'flag' || source.from === 'env') return source.name!
  if (source.from === 'config') return `${setting} in ${source.name}`
  return setting
}

/** Whether a URL from the config names `endpoint`; one that is not a URL names nothing. */
function sameUrl(value: string, endpoint: string): boolean {
  try {
    return normalizeUrl(value, 'endpoint') === endpoint
  } catch {
    return false
  }
}

export function normalizeUrl(value: string, name: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new CliError(`${name} must be an http(s) URL, got '${value}'`, 'usage')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`${name} must be an http(s) URL, got '${value}'`, 'usage')
  }
  return url.toString().replace(/\/+$/, '')
}

/** `svc_abcd…wxyz`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string | undefined): string {
  if (!key) return '(none)'
  return key.length <= 12 ? '****' : `${key.slice(0, 8)}…${key.slice(-4)}`
}
