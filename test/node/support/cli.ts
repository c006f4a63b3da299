import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const SVC = fileURLToPath(new URL('../../../dist/svc.mjs', import.meta.url))

/** Bundles the CLI as `npm ci` does, so the tests run the real single file. */
export function buildCli() {
  const result = spawnSync(process.execPath, ['cli/build.mjs'], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`CLI build failed: ${result.stderr}`)
}

export type Run = { code: number; stdout: string; stderr: string; stdoutBytes: Buffer }

/** Runs `svc` as a child process with a given HOME and environment; never inherits a real config. */
export function svc(
  home: string,
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC, ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => err.push(d))
    child.on('error', reject)
    child.on('close', (code) => {
      const stdoutBytes = Buffer.concat(out)
      resolve({
        code: code ?? 1,
        stdout: stdoutBytes.toString(),
        stderr: Buffer.concat(err).toString(),
        stdoutBytes,
      })
    })
  })
}

/**
 * `svc push <target> --watch --json` running in the background: each JSON line it prints lands
 * in `lines`; `until` waits (15 s at most) for a condition, failing with the child's stderr.
 */
export function watchPush(target: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [SVC, 'push', target, '--watch', '--json'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: any[] = []
  let buffered = ''
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  child.stdout.on('data', (d) => {
    buffered += d
    for (let i; (i = buffered.indexOf('\n')) >= 0; buffered = buffered.slice(i + 1)) {
      lines.push(JSON.parse(buffered.slice(0, i)))
    }
  })
  const until = async (test: () => boolean, what: string) => {
    const deadline = Date.now() + 15_000
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out: ${what}\n${stderr}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return { child, lines, until, stderr: () => stderr }
}
