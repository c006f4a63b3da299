import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { svc } from './support/cli'

// The agent skill (skills/canvas/SKILL.md): every `svc` command and flag it teaches is one the
// built CLI has, as its own help says.

const SKILL = readFileSync(new URL('../../skills/canvas/SKILL.md', import.meta.url), 'utf8')

describe('the agent skill', () => {
  it('teaches only commands and flags svc has', async () => {
    const lines = [...SKILL.matchAll(/^svc ([a-z-]+)(.*)$/gm)]
    const used = new Map<string, Set<string>>()
    for (const [, command, rest] of lines) {
      const flags = used.get(command) ?? new Set<string>()
      for (const [flag] of rest.split('#')[0].matchAll(/--[a-z-]+/g)) flags.add(flag)
      used.set(command, flags)
    }
    expect([...used.keys()]).toEqual(
      expect.arrayContaining(['push', 'share', 'comments', 'comment', 'resolve', 'login']),
    )
    const home = mkdtempSync(join(tmpdir(), 'canvas-skill-'))
    for (const [command, flags] of used) {
      const help = await svc(home, [command, '--help'])
      expect(help.code, command).toBe(0)
      for (const flag of flags) expect(help.stdout, `svc ${command} ${flag}`).toContain(flag)
    }
  })
})
