import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkSitePaths, pathProblem } from '../../cli/site-paths'
import { planContent } from '../../src/domain/site-items'
import { itemPath } from '../../src/schema/requests'

// The CLI checks a site's paths before uploading anything, with rules it keeps apart from the
// Worker's (it may not import them): here the two are held to the same answers.

const pieces = ['a', 'b', 'é', '😀', '.', '..', '/', '\\', ' ', '\u0000', '\u0007', '\u007f']
const path = fc
  .array(fc.oneof(fc.constantFrom(...pieces), fc.constant('\ud800'), fc.string()), {
    maxLength: 8,
  })
  .map((parts) => parts.join(''))

describe('pathProblem', () => {
  it('accepts and refuses exactly the paths the API does', () => {
    fc.assert(
      fc.property(path, (p) => {
        expect(pathProblem(p) === null, JSON.stringify(p)).toBe(itemPath.safeParse(p).success)
      }),
      { numRuns: 2000 },
    )
  })

  it('names the rule, in the API’s words', () => {
    const cases: [string, string][] = [
      ['', 'must not be empty'],
      ['a\u0007b.html', 'must not contain control characters'],
      ['a\\b.html', 'must separate folders with /, not \\'],
      ['/etc/passwd', 'must be relative (no leading /)'],
      ['a/../b', 'must not have an empty, . or .. segment'],
      ['a//b', 'must not have an empty, . or .. segment'],
      ['x\ud800', 'must not contain unpaired surrogates (half of a character)'],
      ['é'.repeat(257), 'must be at most 512 bytes'],
    ]
    for (const [p, problem] of cases) {
      expect(pathProblem(p)).toBe(problem)
      const server = itemPath.safeParse(p)
      expect(server.success ? null : server.error.issues[0].message).toBe(problem)
    }
    expect(pathProblem('é'.repeat(256))).toBeNull()
    expect(pathProblem('img/😀 chart.svg')).toBeNull()
  })
})

describe('checkSitePaths', () => {
  it('refuses the lists the API refuses, and only those', () => {
    const list = fc.array(fc.constantFrom('a', 'b', 'a/b', 'a/c', 'b/a/c', 'c'), {
      minLength: 1,
      maxLength: 6,
    })
    fc.assert(
      fc.property(list, fc.integer({ min: 1, max: 6 }), (paths, max) => {
        const items = paths.map((p) => ({ path: p, file_id: 'f' }))
        const server = (() => {
          try {
            planContent({ items }, max)
            return true
          } catch {
            return false
          }
        })()
        const client = (() => {
          try {
            checkSitePaths(paths, max)
            return true
          } catch {
            return false
          }
        })()
        expect(client, JSON.stringify({ paths, max })).toBe(server)
      }),
    )
  })

  it('says what is wrong, showing what a terminal would hide', () => {
    const problem = (paths: string[], max = 1000) => {
      try {
        checkSitePaths(paths, max)
        return null
      } catch (err: any) {
        return `${err.message} (${err.code})`
      }
    }
    expect(problem(['ok.html', 'a\u001bb.html', 'c\\d'])).toBe(
      "cannot publish 'a\\u001bb.html': a path must not contain control characters (and 1 more) (invalid_path)",
    )
    expect(problem(['a', 'a/b'])).toBe(
      "the path 'a' is a file and also a folder of another (invalid_path)",
    )
    expect(problem(['a', 'b', 'c'], 2)).toBe(
      'too many files: a site holds at most 2, and this folder has more (too_many_files)',
    )
    expect(problem(['bidi\u202Etxt.exe'])).toBeNull()
    expect(problem(['x', 'x'])).toBe("the path 'x' is given twice (invalid_path)")
  })
})
