import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { anchorOf } from '../../src/lib/anchors'
import { DOC_INDEX } from '../../src/web/docs/contents'

// The README and docs/ as a newcomer follows them: every relative link leads to a file that is
// there (and to a heading that is, for a link with #), and every path of the repository a page
// names in code (`src/domain/sweep.ts`) exists, so that moving a file without its docs fails here.

const root = fileURLToPath(new URL('../..', import.meta.url))
const PAGES = [
  'README.md',
  'SECURITY.md',
  'BENCHMARKS.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]
const read = (page: string) => readFileSync(join(root, page), 'utf8')

/** The text outside fenced code blocks, where links and headings are. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '')

const anchors = (text: string) =>
  new Set([...prose(text).matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1])))

// Backticked names that are paths of this repository: under one of its folders. (A bare file
// name, `faults.test.ts`, is left alone: it names a file of the folder the sentence is about.)
const FOLDERS = ['src', 'test', 'cli', 'assets', 'scripts', 'docs', 'drizzle', 'build', '.ci']
// A journal of measurements names the files as they were then.
const JOURNALS = ['docs/benchmarks-history.md']

function namedPaths(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1].replace(/[.,:;]$/, ''))
    .filter((p) => FOLDERS.some((f) => p.startsWith(`${f}/`)))
    .filter((p) => !/[<>*{}[\]|$]/.test(p) && !p.includes('...') && !p.includes('…'))
}

describe('the README and docs/', () => {
  it('the README is a front door of at most 150 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(150)
  })

  it('every relative link leads to a file there, and to a heading there', () => {
    const broken: string[] = []
    for (const page of PAGES) {
      for (const [, target] of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|\/)/.test(target)) continue
        const [path, hash] = target.split('#')
        const file = path ? normalize(join(dirname(page), path)) : page
        if (!existsSync(join(root, file))) {
          broken.push(`${page}: ${target}`)
          continue
        }
        if (hash && file.endsWith('.md') && !anchors(read(file)).has(hash)) {
          broken.push(`${page}: ${target} (no such heading)`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it('every path of the repository a page names exists', () => {
    const missing = PAGES.filter((page) => !JOURNALS.includes(page)).flatMap((page) =>
      namedPaths(read(page))
        .filter((path) => !existsSync(join(root, path)) && !existsSync(join(root, 'docs', path)))
        .map((path) => `${page}: ${path}`),
    )
    expect(missing).toEqual([])
  })

  it('the deployment lists every page there is, once', () => {
    const pages = PAGES.map((p) =>
      p
        .replace(/^docs\//, '')
        .replace(/\.md$/, '')
        .toLowerCase(),
    )
    expect(DOC_INDEX.map((d) => d.page).sort()).toEqual(pages.sort())
  })

  it('each page of docs/ opens with its title, a sentence, and its contents when it has sections', () => {
    for (const page of PAGES.filter((p) => p.startsWith('docs/'))) {
      const text = read(page)
      expect(text, page).toMatch(/^# .+\n\n\S/)
      const sections = [...prose(text).matchAll(/^## (.+)$/gm)]
      if (sections.length < 2) continue
      for (const [, heading] of sections) {
        expect(text, `${page}: ${heading}`).toContain(`](#${anchorOf(heading)})`)
      }
    }
  })
})
