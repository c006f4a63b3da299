#!/usr/bin/env node
// Runs before `npm test`: the browser tests drive Debian's Chromium, its headless shell where it is
// installed (a third less CPU) and the whole browser for the rest. When a package is missing and
// this process may install packages (root with apt-get), install it; otherwise say how. The shell
// is worth having, not needed: without it the tests run in the whole browser.
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { CHROMIUM_PATH, HEADLESS_SHELL_PATH } from './lib/chromium.mjs'

const canInstall = () =>
  process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0

/** apt-get update, then install `names`: true when it worked. */
function install(names) {
  console.log(`installing ${names.join(' and ')} for the browser tests (apt-get)…`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...names],
  ]) {
    if (spawnSync('apt-get', args, { stdio: 'inherit', env }).status !== 0) return false
  }
  return true
}

const shell = existsSync(HEADLESS_SHELL_PATH) ? [] : ['chromium-headless-shell']
if (!existsSync(CHROMIUM_PATH)) {
  if (!canInstall()) {
    console.error(
      `error: ${CHROMIUM_PATH} is missing; install Debian's chromium package (apt-get install chromium ${shell.join(' ')})`,
    )
    process.exit(1)
  }
  if (!install(['chromium', ...shell]) && !install(['chromium'])) process.exit(1)
} else if (shell.length > 0) {
  if (!canInstall() || !install(shell)) {
    console.log(
      `note: ${HEADLESS_SHELL_PATH} is missing: the browser tests run in the whole browser, more slowly (apt-get install chromium-headless-shell)`,
    )
  }
}
