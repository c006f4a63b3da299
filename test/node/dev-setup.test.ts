import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ensureSecrets, listMigrations, setupArgs } from '../../scripts/lib/dev.mjs'
import { SETUP_MS, migratedState } from './support/dev-server'

// `npm run dev` bound beyond this machine (the review's fifth finding): the first account then
// needs a setup token made for the run, since a client on the network could claim to be the
// machine itself in a header; bound to loopback (the default) the machine creates it.
describe('npm run dev’s first account', () => {
  it('needs a setup token made for the run when bound beyond loopback', () => {
    for (const args of [
      ['--ip', '0.0.0.0'],
      ['--ip=192.168.1.20'],
      ['--port', '8790', '--ip', '::'],
    ]) {
      const setup = setupArgs(args)
      expect(setup.token, args.join(' ')).toMatch(/^[0-9a-f]{48}$/)
      expect(setup.args).toEqual(['--var', `SETUP_TOKEN:${setup.token}`])
    }
    expect(setupArgs(['--ip', '0.0.0.0']).token).not.toBe(setupArgs(['--ip', '0.0.0.0']).token)
  })

  it('is the machine’s own on loopback, or when a token is given already', () => {
    for (const args of [
      [],
      ['--ip', '127.0.0.1'],
      ['--ip=localhost'],
      ['--ip', '::1'],
      ['--ip', '0.0.0.0', '--var', 'SETUP_TOKEN:mine'],
    ]) {
      expect(setupArgs(args), args.join(' ')).toEqual({ args: [], token: null })
    }
  })
})

// wrangler dev says "Your types might be out of date" when the names in .dev.vars are not those
// the checked-in types were made of (.dev.vars.example's).
describe('npm run dev’s .dev.vars', () => {
  const names = (text: string) => Array.from(text.matchAll(/^([A-Z][A-Z0-9_]*)=/gm), (m) => m[1])

  it('names what the example names: the secrets generated, the rest unset, what is there kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'canvas-dev-vars-'))
    try {
      const file = join(dir, '.dev.vars')
      writeFileSync(file, 'CSRF_SECRET=mine-of-64-characters-kept-as-it-is-0123456789abcdef0123')
      ensureSecrets(file)
      const made = readFileSync(file, 'utf8')
      const example = readFileSync(new URL('../../.dev.vars.example', import.meta.url), 'utf8')
      expect(names(made).sort()).toEqual(names(example).sort())
      expect(made).toMatch(
        /^CSRF_SECRET=mine-of-64-characters-kept-as-it-is-0123456789abcdef0123$/m,
      )
      expect(made).toMatch(/^FRAME_SIGNING_SECRET=[0-9a-f]{64}$/m)
      // The first account is the machine's own locally: no setup token.
      expect(made).toMatch(/^SETUP_TOKEN=$/m)
      ensureSecrets(file)
      expect(readFileSync(file, 'utf8')).toBe(made)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

// The tests' servers start from a state migrated in one pass (applyMigrationsAtOnce): wrangler's
// own `d1 migrations apply` must find it complete, as it finds a state it migrated itself.
describe('the tests’ migrated state', () => {
  it(
    'leaves wrangler nothing to apply',
    async () => {
      const state = mkdtempSync(join(tmpdir(), 'canvas-dev-setup-'))
      try {
        cpSync(await migratedState(), state, { recursive: true })
        const listed = await listMigrations(state)
        expect(listed.code, listed.output).toBe(0)
        expect(listed.output).toContain('No migrations to apply')
      } finally {
        rmSync(state, { recursive: true, force: true })
      }
    },
    SETUP_MS,
  )
})
