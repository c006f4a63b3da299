import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { Zip, ZipPassThrough, zipSync } from 'fflate'
import { afterAll, describe, expect, it } from 'vitest'
import { leftOutNote, readFolder } from '../../cli/folder'
import { checkFolder, extractSite, readArchive } from '../../cli/site-pull'
import { archiveBound } from '../../cli/zip'

// A folder as the items of a site, and an archive written back out as a folder: what a demanding
// user's disk can hold, and what a misbehaving server could send.

const work = mkdtempSync(join(tmpdir(), 'canvas-folder-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

let count = 0
function tree(files: Record<string, string>): string {
  const root = join(work, `tree-${count++}`)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  mkdirSync(root, { recursive: true })
  return root
}

const failure = (run: () => unknown) => {
  try {
    run()
  } catch (err: any) {
    return `${err.message} (${err.code})`
  }
  return null
}

describe('readFolder', () => {
  it('lists regular files by relative path, leaving out hidden ones, node_modules and links out', () => {
    const outside = tree({ 'secret.txt': 'outside' })
    const root = tree({
      'index.html': '<p>hi',
      'css/site.css': 'p{}',
      'a/b/c/deep.txt': 'deep',
      '.env': 'KEY=1',
      '.git/HEAD': 'ref',
      'node_modules/x/index.js': '1',
      'docs/.hidden/inner.txt': 'x',
    })
    symlinkSync(join(outside, 'secret.txt'), join(root, 'escape.txt'))
    symlinkSync(outside, join(root, 'escape-dir'))
    symlinkSync('index.html', join(root, 'home.html'))
    symlinkSync('.env', join(root, 'env.txt'))
    symlinkSync('nowhere', join(root, 'broken'))
    execFileSync('mkfifo', [join(root, 'pipe')])
    const folder = readFolder(root)
    expect(folder.files.map((f) => f.path)).toEqual([
      'a/b/c/deep.txt',
      'css/site.css',
      'home.html',
      'index.html',
    ])
    // A link to a file inside is that file, read from its target.
    expect(folder.files[2]).toEqual({
      path: 'home.html',
      source: join(root, 'index.html'),
      size: 5,
    })
    expect(leftOutNote(folder)).toBe(
      "left out '.env', '.git', 'docs/.hidden' and 1 more (hidden or node_modules; --all includes them); " +
        "'broken', 'env.txt', 'escape-dir' and 1 more (links to a folder, to nothing or out of the folder); " +
        "'pipe' (neither files nor folders)",
    )
    // Named as given: a link to the folder names the site, not the folder it points to.
    symlinkSync(root, join(work, 'dist'))
    expect(readFolder(join(work, 'dist'))).toMatchObject({ name: 'dist', root })
    const all = readFolder(root, { all: true }).files.map((f) => f.path)
    expect(all).toContain('.git/HEAD')
    expect(all).toContain('node_modules/x/index.js')
    expect(all).toContain('env.txt')
    expect(all).not.toContain('escape.txt')
  })

  it('refuses names the API would refuse, before anything is uploaded', () => {
    const control = tree({ 'ok.html': '1', 'bell\u0007.html': '2' })
    expect(failure(() => readFolder(control))).toBe(
      "cannot publish 'bell\\u0007.html': a path must not contain control characters (invalid_path)",
    )
    const backslash = tree({ 'a\\b.html': '1' })
    expect(failure(() => readFolder(backslash))).toBe(
      "cannot publish 'a\\b.html': a path must separate folders with /, not \\ (invalid_path)",
    )
    const latin1 = tree({})
    writeFileSync(Buffer.from(join(latin1, 'caf\xe9.html'), 'latin1'), 'x')
    expect(failure(() => readFolder(latin1))).toBe(
      "cannot publish 'caf\ufffd.html': its name is not valid UTF-8 (invalid_path)",
    )
    expect(failure(() => readFolder(tree({ '.only-hidden': 'x' })))).toMatch(
      /^no files to publish in .* \(hidden files are left out unless --all is given\) \(invalid_path\)$/,
    )
  })

  it('stops reading at one file over the limit', () => {
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, 'x']))
    const root = tree(files)
    process.env.CANVAS_MAX_SITE_ITEMS = '5'
    try {
      expect(failure(() => readFolder(root))).toBe(
        'too many files: a site holds at most 5, and this folder has more (too_many_files)',
      )
      process.env.CANVAS_MAX_SITE_ITEMS = '6'
      expect(readFolder(root).files).toHaveLength(6)
    } finally {
      delete process.env.CANVAS_MAX_SITE_ITEMS
    }
  })
})

describe('extractSite', () => {
  const archive = (entries: Record<string, string>) => {
    const path = join(work, `archive-${count++}.zip`)
    const files = Object.fromEntries(
      Object.entries(entries).map(([name, text]) => [name, new TextEncoder().encode(text)]),
    )
    writeFileSync(path, zipSync(files, { level: 0 }))
    return path
  }
  const extract = async (zip: string, folder: string, force = false) =>
    extractSite(zip, await readArchive(zip), folder, { force })

  it('writes every entry under the folder, creating its folders', async () => {
    const zip = archive({ 'index.html': '<p>', 'img/a/b.svg': '<svg/>', 'é 😀.txt': 'wide' })
    const out = join(work, 'out-ok')
    expect(await extract(zip, out)).toEqual({ files: 3, bytes: 13 })
    expect(readFileSync(join(out, 'img/a/b.svg'), 'utf8')).toBe('<svg/>')
    expect(readFileSync(join(out, 'é 😀.txt'), 'utf8')).toBe('wide')
    await expect(extract(zip, out)).rejects.toThrow(
      `${join(out, 'index.html')} exists; pass --force`,
    )
    expect((await extract(zip, out, true)).files).toBe(3)
  })

  it('refuses paths that climb out, and writes nothing at all', async () => {
    const out = join(work, 'out-evil')
    for (const name of ['../evil.txt', '/etc/evil', 'a/../../evil', 'a\\..\\evil']) {
      const zip = archive({ 'index.html': 'first', [name]: 'evil' })
      await expect(extract(zip, out)).rejects.toMatchObject({ code: 'invalid_path' })
    }
    expect(existsSync(out)).toBe(false)
    expect(existsSync(join(work, 'evil.txt'))).toBe(false)
    expect(existsSync('/etc/evil')).toBe(false)
    expect(() => checkFolder(out, ['index.html', 'x/../y'], false)).toThrow(
      "cannot write 'x/../y': a path must not have an empty, . or .. segment",
    )
  })

  it('never writes through a link it finds in the folder', async () => {
    const out = join(work, 'out-link')
    const elsewhere = mkdtempSync(join(work, 'elsewhere-'))
    mkdirSync(out)
    symlinkSync(elsewhere, join(out, 'assets'))
    const zip = archive({ 'index.html': '<p>', 'assets/app.js': 'pwned' })
    await expect(extract(zip, out)).rejects.toThrow(
      `refusing to write through the symbolic link ${join(out, 'assets')}`,
    )
    expect(readdirSync(elsewhere)).toEqual([])
    expect(existsSync(join(out, 'index.html'))).toBe(false)
  })

  it('refuses damaged content', async () => {
    const zip = archive({ 'a.txt': 'hello', 'b.txt': 'world' })
    const bytes = readFileSync(zip)
    const at = bytes.indexOf('world')
    bytes[at] = 'W'.charCodeAt(0)
    writeFileSync(zip, bytes)
    const out = join(work, 'out-damaged')
    await expect(extract(zip, out)).rejects.toThrow("'b.txt' arrived damaged")
    expect(readdirSync(out)).toEqual(['a.txt'])
  })
})

describe('archiveBound', () => {
  /** A version's archive as the service streams it (src/domain/archives/archive.ts): stored, described after. */
  function streamedZip(files: { path: string; bytes: Uint8Array }[]): number {
    let length = 0
    const zip = new Zip((err, chunk) => {
      if (err) throw err
      length += chunk.length
    })
    for (const f of files) {
      const entry = new ZipPassThrough(f.path)
      entry.mtime = Date.now()
      zip.add(entry)
      entry.push(f.bytes, true)
    }
    zip.end()
    return length
  }

  it('holds every archive of the listed files, and not much more', () => {
    const file = fc.record({
      path: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
      bytes: fc.uint8Array({ maxLength: 3000 }),
    })
    fc.assert(
      fc.property(fc.array(file, { minLength: 1, maxLength: 30 }), (files) => {
        const listed = files.map((f) => ({ path: f.path, size: f.bytes.length }))
        const actual = streamedZip(files)
        expect(actual).toBeLessThanOrEqual(archiveBound(listed))
        expect(archiveBound(listed) - actual).toBeLessThan(1024 + 200 * files.length)
      }),
      { numRuns: 300 },
    )
  })
})
