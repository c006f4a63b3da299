// wrk, from Debian's packages: installed when missing, run against one URL, its output parsed.
import { spawnSync } from 'node:child_process'

export function ensureWrk() {
  if (spawnSync('sh', ['-c', 'command -v wrk']).status === 0) return
  console.log('installing wrk (apt-get)…')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
  const result = spawnSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit', env })
  if (result.status !== 0) throw new Error('wrk is missing and could not be installed')
}

/**
 * Loads `target.url` for `seconds` from `connections` connections. One wrk thread is plenty at
 * these rates, and leaves the second core to the runtime. Throws, saying why, when wrk fails or
 * measures nothing, rather than answer zeros a table would show as figures.
 */
export function wrk(target, seconds, connections) {
  const command = [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    ...(target.headers ?? []),
  ]
  if (target.lua) command.push('-s', target.lua)
  command.push(target.url)
  // wrk ends on its own after `seconds`; the margin covers its start and a stalled runtime.
  const run = spawnSync('wrk', command, { encoding: 'utf8', timeout: (seconds + 60) * 1000 })
  const text = run.stdout ?? ''
  const failure = wrkFailure(run, text)
  if (failure)
    throw Object.assign(new Error(`wrk ${target.url}: ${failure}`), { wrkFailure: failure })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0)
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? 0)
  // wrk counts a 4xx/5xx answer apart from a socket that failed (connect, read, write, timeout).
  const statusErrors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0
  return {
    rps,
    requests,
    p50: latency(text, '50%'),
    p99: latency(text, '99%'),
    statusErrors,
    socketErrors,
  }
}

/** Why a wrk run gave no figure, or nothing when it gave one. */
function wrkFailure(run, text) {
  if (run.error) return run.error.message
  if (run.signal) return `killed by ${run.signal}`
  const said = (run.stderr ?? '').trim().split('\n')[0]
  if (run.status !== 0) return `exit ${run.status}${said ? `: ${said}` : ''}`
  if (!/Requests\/sec:/.test(text) || !/50%\s/.test(text))
    return `no figures in its output${said ? `: ${said}` : ''}`
  if (Number(/(\d+) requests in/.exec(text)?.[1] ?? 0) === 0) return 'no request completed'
  return undefined
}

function latency(text, label) {
  const match = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(text)
  if (!match) return 0
  const value = Number(match[1])
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
}

/** The median of `values` (the higher middle one of an even count); undefined when empty. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}
