import { appendFileSync, existsSync, renameSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { configDir, ensureConfigDir } from './config'
import { Formatted, jsonText, note, visible } from './output'

// ~/.svc/cli.log: `<ISO-8601> [LEVEL] <message> <JSON>`, rotated at 5 MB keeping one old file.
// Secrets never reach it: keys named like secrets are redacted, and so is anything shaped like an
// API key or a signature wherever it appears.

const MAX_BYTES = 5 * 1024 * 1024
const SECRET_FIELD = /^(api_?key|key|password|secret|authorization|x-share-password)$/i
const SECRET_TEXT = [/svc_[A-Za-z0-9]+/g, /X-Amz-Signature=[0-9a-f]+/gi]

export type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR'

let debug = false
let broken = false

export function setDebug(on: boolean) {
  debug = on
}

export function log(level: Level, message: string, meta: Record<string, unknown> = {}) {
  // A message may quote a server: the line is safe to print and to `cat` later.
  const line = `${new Date().toISOString()} [${level}] ${visible(scrub(message))} ${jsonText(redact(meta))}\n`
  if (debug) note(new Formatted(line.slice(0, -1)))
  if (broken) return
  try {
    const dir = ensureConfigDir()
    const file = join(dir, 'cli.log')
    if (existsSync(file) && statSync(file).size + line.length > MAX_BYTES) {
      renameSync(file, join(configDir(), 'cli.log.1'))
    }
    appendFileSync(file, line, { mode: 0o600 })
  } catch {
    // A read-only home must not break the command itself.
    broken = true
  }
}

export function redact(value: unknown, field = ''): unknown {
  if (SECRET_FIELD.test(field) && value !== undefined && value !== null && value !== false) {
    return '[redacted]'
  }
  if (typeof value === 'string') return scrub(value)
  if (Array.isArray(value)) return value.map((v) => redact(v))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, k)]))
  }
  return value
}

function scrub(text: string): string {
  let out = text
  for (const pattern of SECRET_TEXT) out = out.replace(pattern, (m) => m.slice(0, 4) + '[redacted]')
  return out
}
