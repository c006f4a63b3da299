#!/usr/bin/env node
// Runs before `npm test`: the browser tests drive Debian's Chromium. When it is missing and this
// process may install packages (root with apt-get), install it; otherwise say how.
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'

const CHROMIUM = '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  const canInstall =
    process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0
  if (!canInstall) {
    console.error(
      `error: ${CHROMIUM} is missing; install Debian's chromium package (apt-get install chromium)`,
    )
    process.exit(1)
  }
  console.log('installing chromium for the browser tests (apt-get)…')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', 'chromium'],
  ]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (result.status !== 0) process.exit(result.status ?? 1)
  }
}
