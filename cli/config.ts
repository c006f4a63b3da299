import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { CliError } from './errors'

// ~/.svc/config.json (dir 0700, file 0600). Precedence: flag > environment > file > defaults.

export const DEFAULT_URL = 'http://127.0.0.1:8787'

export type StoredConfig = { api_key?: string; endpoint?: string; web_url?: string }

export type Settings = {
  apiKey?: string
  endpoint: string
  webUrl: string
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
 * The key, the endpoint in use and the web URL links are printed with. The web URL is the one
 * given (flag, CANVAS_WEB_URL), else the config's when the endpoint in use is the config's own (a
 * web URL saved for another deployment would be a dead link), else the endpoint in use: one Worker
 * serves the API and the pages.
 */
export function resolveSettings(flags: { endpoint?: string; webUrl?: string } = {}): Settings {
  const file = readConfig()
  const env = process.env
  const endpoint = normalizeUrl(
    flags.endpoint || env.CANVAS_ENDPOINT || file.endpoint || DEFAULT_URL,
    'endpoint',
  )
  const given = flags.webUrl || env.CANVAS_WEB_URL
  const saved = file.web_url && sameUrl(file.endpoint || DEFAULT_URL, endpoint) && file.web_url
  return {
    apiKey: env.CANVAS_API_KEY || file.api_key,
    endpoint,
    webUrl: given || saved ? normalizeUrl((given || saved) as string, 'web_url') : endpoint,
  }
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
