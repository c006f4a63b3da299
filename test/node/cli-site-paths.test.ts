import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkSitePaths, pathProblem } from '../../cli/site-paths'
import { planContent } from '../../src/domain/canvases/site-items'
import { itemPath } from '../../src/schema/requests'
import { collidingPaths, sitePath, sitePathList } from '../support/hostile-values'

// The CLI checks a site's paths before uploading anything and before writing a pull, by the rules
// the API refuses them with: here the CLI's verdicts are held to the server's, for generated
// hostile paths and lists.

/** The server's answer to a list: its 400's message, or null when it would take it. */
function serverVerdict(paths: string[], max = 1000): string | null {
  for (const [index, path] of paths.entries()) {
    const parsed = itemPath.safeParse(path)
    if (!parsed.success) return `items.${index}.path: ${parsed.error.issues[0].message}`
  }
  try {
    planContent({ items: paths.map((path) => ({ path, file_id: 'f' })) }, max)
    return null
  } catch (err: any) {
    return err.message
  }
}

function cliVerdict(paths: string[], max = 1000): string | null {
  try {
    checkSitePaths(paths, max)
    return null
  } catch (err: any) {
    return `${err.message} (${err.code})`
  }
}

describe('pathProblem', () => {
  it('accepts and refuses exactly the paths the API does, with its words', () => {
    fc.assert(
      fc.property(sitePath, (p) => {
        const server = itemPath.safeParse(p)
        const problem = server.success ? null : server.error.issues[0].message
        expect(pathProblem(p), JSON.stringify(p)).toBe(problem)
      }),
      { numRuns: 5000 },
    )
  })

  it('names the rule, in the API’s words', () => {
    const cases: [string, string][] = [
      ['', 'must not be empty'],
      ['a\u0007b.html', 'must not contain control characters'],
      ['a\u009b31mb.txt', 'must not contain control characters'],
      ['invoice\u202etxt.exe', 'must not contain bidirectional controls'],
      ['a\\b.html', 'must separate folders with /, not \\'],
      ['/etc/passwd', 'must be relative (no leading /)'],
      ['a/../b', 'must not have an empty, . or .. segment'],
      ['a//b', 'must not have an empty, . or .. segment'],
      ['x\ud800', 'must not contain unpaired surrogates (half of a character)'],
      ['é'.repeat(257), 'must be at most 512 bytes'],
      ['C:x.html', 'must not contain : (a drive or a stream on Windows)'],
      ['a.html:evil', 'must not contain : (a drive or a stream on Windows)'],
      ['docs./a.html', 'must not have a segment ending in a dot or a space'],
      ['a.html ', 'must not have a segment ending in a dot or a space'],
    ]
    const device =
      'must not have a segment named as a Windows device (con, prn, aux, nul, com1, lpt1...)'
    for (const name of ['con', 'aux.txt', 'LPT1.log', 'docs/Nul/a.html', 'com9.tar.gz', 'PRN']) {
      cases.push([name, device])
    }
    for (const [p, problem] of cases) {
      expect(pathProblem(p), JSON.stringify(p)).toBe(problem)
      const server = itemPath.safeParse(p)
      expect(server.success ? null : server.error.issues[0].message, JSON.stringify(p)).toBe(
        problem,
      )
    }
    for (const fine of ['é'.repeat(256), 'img/😀 chart.svg', 'console.html', 'com10', 'a.b/c']) {
      expect(pathProblem(fine), fine).toBeNull()
    }
  })
})

describe('checkSitePaths', () => {
  it('refuses the lists the API refuses, and only those', () => {
    fc.assert(
      fc.property(
        fc.oneof(sitePathList, collidingPaths),
        fc.integer({ min: 1, max: 6 }),
        (paths, max) => {
          const server = serverVerdict(paths, max)
          const client = cliVerdict(paths, max)
          expect(client === null, JSON.stringify({ paths, max, server, client })).toBe(
            server === null,
          )
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('says what is wrong, showing what a terminal would hide', () => {
    expect(cliVerdict(['ok.html', 'a\u001bb.html', 'c\\d'])).toBe(
      "cannot publish 'a\\u001bb.html': a path must not contain control characters (and 1 more) (invalid_path)",
    )
    expect(cliVerdict(['a', 'a/b'])).toBe(
      "cannot publish these files: 'a' is a file and also a folder of another item (invalid_path)",
    )
    expect(cliVerdict(['a', 'b', 'c'], 2)).toBe(
      'too many files: a site holds at most 2, and this folder has more (too_many_files)',
    )
    expect(cliVerdict(['bidi\u202Etxt.exe'])).toBe(
      "cannot publish 'bidi\\u202etxt.exe': a path must not contain bidirectional controls (invalid_path)",
    )
    expect(cliVerdict(['x', 'x'])).toBe(
      "cannot publish these files: 'x' is given more than once (invalid_path)",
    )
    const oneName = 'are one name where case or Unicode normalization is ignored (macOS, Windows)'
    expect(cliVerdict(['a.html', 'A.html'])).toBe(
      `cannot publish these files: 'A.html' and 'a.html' ${oneName} (invalid_path)`,
    )
    expect(cliVerdict(['A', 'a/b'])).toBe(
      `cannot publish these files: 'A' and a folder of 'a/b' ${oneName} (invalid_path)`,
    )
    // Folders that differ in case only merge into one, losing nothing: allowed.
    expect(cliVerdict(['A/x.html', 'a/y.html'])).toBeNull()
  })

  it('names the same item as the API does', () => {
    for (const [paths, message] of [
      [['A.html', 'b', 'a.html'], "items.2.path: 'a.html' and 'A.html'"],
      [['é.html', 'e\u0301.html'], "items.1.path: 'e\u0301.html' and 'é.html'"],
      [['a/b', 'A'], "items.1.path: 'A' and a folder of 'a/b'"],
    ] as const) {
      expect(serverVerdict([...paths])).toMatch(new RegExp(`^${message}`))
      expect(cliVerdict([...paths])).toMatch(new RegExp(message.replace(/^items\.\d\.path: /, '')))
    }
  })
})
