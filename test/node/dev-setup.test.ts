import { describe, expect, it } from 'vitest'
// @ts-expect-error: a script of the project's, in plain JavaScript
import { setupArgs } from '../../scripts/lib/dev.mjs'

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
