import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { svc } from './support/cli'
import { newDevAccount, sharedDevServer, SETUP_MS } from './support/dev-server'

// docs/cli.md's word on `svc --json`, run: every row of its table, the canvas it shows and each
// `--json` example, against a real `wrangler dev`, so that the page cannot drift from what the
// CLI prints.

const CLI_SECTION = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')
// Every page with `svc ... --json` examples: the README and docs/.
const DOCS = [
  'README.md',
  ...readdirSync(new URL('../../docs', import.meta.url)).map((f) => `docs/${f}`),
]
  .filter((f) => f.endsWith('.md'))
  .map((f) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8'))
  .join('\n')

let server: { url: string }
let key: string
let work: string

beforeAll(async () => {
  server = await sharedDevServer()
  key = (await newDevAccount(server.url, 'readme@example.com')).key
  work = mkdtempSync(join(tmpdir(), 'canvas-readme-'))
}, SETUP_MS)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

/** `svc <args> --json` in a HOME of its own, configured by the environment; its JSON. */
async function json(args: string[], cwd?: string) {
  const home = mkdtempSync(join(work, 'home-'))
  const res = await svc(
    home,
    [...args, '--json'],
    // `true` stands in for the browser: `svc open` opens nothing on the machine running the test.
    { CANVAS_API_KEY: key, CANVAS_ENDPOINT: server.url, BROWSER: 'true' },
    cwd,
  )
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0)
  return JSON.parse(res.stdout)
}

// A shape as the docs write one: `{a, b: [{c}], d: {e}}`, `[canvas...]`.
type Shape = { keys: string[]; fields: Record<string, Shape>; list?: boolean }

function parseShape(text: string, canvas?: Shape): Shape {
  let at = 0
  const skip = () => {
    while (text[at] === ' ') at++
  }
  const object = (): Shape => {
    const shape: Shape = { keys: [], fields: {} }
    expect(text[at++], text).toBe('{')
    for (;;) {
      skip()
      const name = /^[A-Za-z_]\w*/.exec(text.slice(at))?.[0]
      if (!name) throw new Error(`not a shape: ${text} (at ${at})`)
      at += name.length
      shape.keys.push(name)
      skip()
      if (text[at] === ':') {
        at++
        skip()
        const field = value()
        if (field) shape.fields[name] = field
      }
      skip()
      if (text[at++] === '}') return shape
    }
  }
  const value = (): Shape | null => {
    if (text[at] === '{') return object()
    if (text[at] === '[') {
      at++
      const element = text[at] === '{' ? object() : word()
      if (text.startsWith('...', at)) at += 3
      expect(text[at++], text).toBe(']')
      return element && { ...element, list: true }
    }
    return word()
  }
  const word = (): Shape | null => {
    const found = /^[A-Za-z_]\w*/.exec(text.slice(at))?.[0] ?? ''
    at += found.length
    return found === 'canvas' ? canvas! : null
  }
  skip()
  return object()
}

/** Holds `actual` to `shape`: exactly the keys it names, and the same of what they hold. */
function check(actual: any, shape: Shape, where: string) {
  expect(Object.keys(actual).sort(), where).toEqual([...shape.keys].sort())
  for (const [name, field] of Object.entries(shape.fields)) {
    const values = field.list ? actual[name] : [actual[name]]
    expect(Array.isArray(values) && values.length > 0, `${where}.${name}`).toBe(true)
    for (const value of values) check(value, { ...field, list: false }, `${where}.${name}`)
  }
}

/** The canvas docs/cli.md shows, as a shape. */
function canvasShape(): Shape {
  const block = /A canvas, as `push`[^\n]*\n\n```json\n([\s\S]*?)\n```/.exec(CLI_SECTION)
  expect(block, 'the canvas example').not.toBeNull()
  return { keys: Object.keys(JSON.parse(block![1])), fields: {} }
}

/** The rows of the `--json` table: the command as written, and the shape it prints. */
function tableRows(canvas: Shape): [string, Shape][] {
  const rows = CLI_SECTION.split('\n').filter((line) => /^\| `svc /.test(line))
  expect(rows.length).toBeGreaterThan(0)
  return rows.map((row) => {
    const [, command, prints] = row.split('|').map((cell) => cell.trim())
    const spans = [...prints.matchAll(/`([^`]+)`/g)].map((m) => m[1])
    let shape: Shape
    if (prints.startsWith('a canvas')) {
      shape = { keys: [...canvas.keys], fields: {} }
      for (const span of spans) {
        const field = /^(\w+)(?::\s*(.+))?$/.exec(span)!
        if (!shape.keys.includes(field[1])) shape.keys.push(field[1])
        if (field[2]) shape.fields[field[1]] = parseShape(field[2], canvas)
      }
    } else {
      shape = parseShape(spans[0], canvas)
    }
    return [command.replace(/^`svc |`$/g, ''), shape]
  })
}

/** A review of each canvas, asked by a member (with a key of theirs for the key's workspace). */
async function reviewsByMember(cookie: string, canvasIds: string[]) {
  const me = await (
    await fetch(`${server.url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } })
  ).json()
  const made = await fetch(`${server.url}/auth/keys`, {
    method: 'POST',
    headers: { Cookie: cookie, 'Content-Type': 'application/json', Origin: server.url },
    body: JSON.stringify({ name: 'member', workspace_id: me.workspace.workspace_id }),
  })
  expect(made.status).toBe(201)
  const memberKey = (await made.json()).key
  const ids: string[] = []
  for (const canvasId of canvasIds) {
    const res = await fetch(`${server.url}/v1/canvases/${canvasId}/reviews`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${memberKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ version: 1 }),
    })
    expect(res.status).toBe(201)
    ids.push((await res.json()).review_id)
  }
  return ids
}

describe('docs: the CLI', () => {
  it('prints for each command the JSON its table says, and the canvas it shows', async () => {
    const canvas = canvasShape()
    const dir = mkdtempSync(join(work, 'files-'))
    const page = join(dir, 'report.html')
    writeFileSync(page, '<h1>Report</h1>')
    const site = join(dir, 'site')
    mkdirSync(join(site, 'css'), { recursive: true })
    writeFileSync(join(site, 'index.html'), '<link rel="stylesheet" href="css/a.css">')
    writeFileSync(join(site, 'css/a.css'), 'p {}')
    const id = (await json(['push', page])).canvas_id
    await json(['push', page, '--id', id, '--title', 'again'])
    const siteId = (await json(['push', site])).canvas_id
    const doomed = (await json(['push', page])).canvas_id
    // A link of a canvas of its own: the table's unshare revokes every link of `id`.
    const link = (await json(['share', (await json(['push', page])).canvas_id])).url
    // A comment on `id` for the rows that list, reply to or resolve one.
    const commentId = (await json(['comment', id, 'First thoughts'])).comment_id
    // A member of the key's workspace, joined by the link svc invite prints, for remove-member.
    const member = await newDevAccount(server.url, 'readme-member@example.com')
    const invited = await json(['invite', '--role', 'editor'])
    const joined = await fetch(`${server.url}/auth/join/${invited.url.split('/join/')[1]}`, {
      method: 'POST',
      headers: { Cookie: member.cookie },
    })
    expect(joined.status).toBe(200)
    // Two reviews the member asks, naming no one, for the rows that decide one and wait for it.
    const reviewIds = await reviewsByMember(member.cookie, [id, siteId])
    let outputs = 0
    const fresh = () => join(dir, `out-${outputs++}`)

    // What each placeholder of a command stands for, by command.
    const valueOf = (command: string, name: string): string => {
      const words = command.split(' ')
      if (name === 'file') return words[0] === 'push' ? page : fresh()
      if (name === 'folder') return words[0] === 'push' ? site : fresh()
      if (name === 'id') {
        if (words[0] === 'delete') return doomed
        return command.includes('<folder>') ? siteId : id
      }
      const fixed: Record<string, string> = {
        title: 'Renamed',
        version: '1',
        link,
        key,
        url: server.url,
        text: 'Looks good',
        comment_id: commentId,
        review_id: reviewIds[words[0] === 'request-changes' ? 1 : 0],
        member: 'readme-member@example.com',
        role: 'viewer',
        query: 'report',
      }
      expect(fixed[name], `a value for <${name}> in \`svc ${command}\``).toBeDefined()
      return fixed[name]
    }
    const rows = tableRows(canvas)
    const seen = new Set<string>()
    for (const [command, shape] of rows) {
      const args = command
        .split(' ')
        .map((word) => word.replace(/^<(\w+)>$/, (_, name) => valueOf(command, name)))
      check(await json(args), shape, `svc ${command} --json`)
      seen.add(command.split(' ')[0] + (command.startsWith('config ') ? ` ${args[1]}` : ''))
    }
    // Every command is in the table.
    const help = await svc(mkdtempSync(join(work, 'home-')), ['--help'])
    const commands = /^USAGE svc \[OPTIONS\] ([\w|-]+)$/m.exec(help.stdout)![1].split('|')
    expect(commands).toContain('renderers')
    for (const name of commands) {
      const wanted = name === 'config' ? ['config show', 'config set'] : [name]
      for (const w of wanted)
        expect(seen.has(w), `svc ${w} in docs/cli.md's --json table`).toBe(true)
    }
    // Some forty runs of the CLI: a loaded machine took over the 60 s default.
  }, 180_000)

  it('the --json examples run, and print the fields they name', async () => {
    const lines = [...DOCS.matchAll(/```sh\n([\s\S]*?)```/g)]
      .flatMap((block) => block[1].split('\n'))
      .map((line) => line.replace(/^\$ /, ''))
      .filter((line) => /^svc /.test(line) && /--json/.test(line.split('#')[0]))
    expect(lines.length).toBeGreaterThanOrEqual(4)
    const cwd = mkdtempSync(join(work, 'examples-'))
    let canvasId = ''
    let commentId = ''
    for (const line of lines) {
      const [command, comment] = line.split(/\s+#\s+/)
      const [svcPart, jq] = command.split(/\s*\|\s*jq\s+/)
      const args = svcPart
        .trim()
        .split(/\s+/)
        .slice(1)
        .filter((a) => a !== '--json')
      if (args[0] === 'push') writeFileSync(join(cwd, args[1]), `# ${args[1]}\n`)
      const real = args.map((a) =>
        /^<(canvas_)?id>$/.test(a) ? canvasId : a === '<comment_id>' ? commentId : a,
      )
      expect(real.includes(''), `${line}: an id before any push or comment`).toBe(false)
      const out = await json(real, cwd)
      if (out.canvas_id && args[0] === 'push') canvasId = out.canvas_id
      if (out.comment_id && args[0] === 'comment') commentId = out.comment_id
      if (jq) {
        const field = /^-r \.(\w+)$/.exec(jq.trim())
        const each = /^'\.(\w+)\[\] \| \{([\w, ]+)\}'$/.exec(jq.trim())
        if (field) {
          expect(typeof out[field[1]], line).toBe('string')
          if (field[1] === 'view_url') expect(out.view_url, line).toMatch(`${server.url}/c/`)
        } else if (each) {
          expect(out[each[1]].length, line).toBeGreaterThan(0)
          for (const entry of out[each[1]]) {
            for (const k of each[2].split(',').map((s) => s.trim())) {
              expect(entry, line).toHaveProperty(k)
            }
          }
        } else {
          throw new Error(
            `${line}: a jq filter this test does not read; keep to .field or .list[] | {a, b}`,
          )
        }
      }
      for (const [, k] of (comment ?? '').matchAll(/"(\w+)"/g)) expect(out, line).toHaveProperty(k)
    }
  })
})
