import { readdirSync, readFileSync } from 'node:fs'
import { convertV4MiniflareOptions, Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// Migrations run on databases that already hold canvases: this one is seeded at the schema before
// sites (migrations 0000-0003) in workerd's own D1, then migrated, and nothing may be lost.

let mf: Miniflare
let db: Awaited<ReturnType<Miniflare['getD1Database']>>

const migrations = readdirSync('drizzle')
  .filter((name) => name.endsWith('.sql'))
  .sort()

async function apply(name: string) {
  const text = readFileSync(`drizzle/${name}`, 'utf8')
  const statements = text
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter(Boolean)
  await db.batch(statements.map((s) => db.prepare(s)))
}

beforeAll(async () => {
  mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: 'export default { fetch() { return new Response(null) } }',
      d1Databases: ['DB'],
    }),
  )
  db = await mf.getD1Database('DB')
})

afterAll(() => mf?.dispose())

describe('0004_version_items on a database seeded before it', () => {
  it('turns every version into one item, index.<ext>, and keeps every row', async () => {
    const before = migrations.filter((name) => name < '0004')
    expect(before).toHaveLength(4)
    for (const name of before) await apply(name)
    const seed = [
      `INSERT INTO users VALUES ('u1', 'a@example.com', 'h', 1)`,
      `INSERT INTO workspaces VALUES ('w1', 'a', 'u1', 1)`,
      `INSERT INTO files (file_id, workspace_id, sha256, size, mime, blob_key, status, created_at, touched_at)
         VALUES ('f1', 'w1', 'aa', 10, 'text/html', 'files/w1/aa', 'ready', 1, 1),
                ('f2', 'w1', 'bb', 20, 'text/html', 'files/w1/bb', 'ready', 1, 1),
                ('f3', 'w1', 'cc', 30, 'application/pdf', 'files/w1/cc', 'ready', 1, 1)`,
      `INSERT INTO canvases VALUES ('c1', 'w1', 'u1', 'Report', 'html', 'html', 'private', 2, 1, 2, NULL),
                                   ('c2', 'w1', 'u1', 'Paper', 'pdf', 'pdf', 'public', 1, 1, 1, 99)`,
      `INSERT INTO versions VALUES ('c1', 1, 'f1', 10, 1), ('c1', 2, 'f2', 20, 2), ('c2', 1, 'f3', 30, 1)`,
      `INSERT INTO share_links (token, canvas_id, version, created_at) VALUES ('t1', 'c1', 1, 1)`,
    ]
    await db.batch(seed.map((s) => db.prepare(s)))

    await apply(migrations.find((name) => name.startsWith('0004'))!)

    const versions = await db
      .prepare('SELECT * FROM versions ORDER BY canvas_id, version')
      .all<Record<string, unknown>>()
    expect(versions.results).toEqual([
      {
        canvas_id: 'c1',
        version: 1,
        file_id: 'f1',
        size: 10,
        created_at: 1,
        main_path: 'index.html',
        item_count: 1,
      },
      {
        canvas_id: 'c1',
        version: 2,
        file_id: 'f2',
        size: 20,
        created_at: 2,
        main_path: 'index.html',
        item_count: 1,
      },
      {
        canvas_id: 'c2',
        version: 1,
        file_id: 'f3',
        size: 30,
        created_at: 1,
        main_path: 'index.pdf',
        item_count: 1,
      },
    ])
    const items = await db
      .prepare('SELECT * FROM version_items ORDER BY canvas_id, version')
      .all<Record<string, unknown>>()
    expect(items.results).toEqual([
      { canvas_id: 'c1', version: 1, path: 'index.html', file_id: 'f1' },
      { canvas_id: 'c1', version: 2, path: 'index.html', file_id: 'f2' },
      { canvas_id: 'c2', version: 1, path: 'index.pdf', file_id: 'f3' },
    ])
    const counts = await db
      .prepare(
        `SELECT (SELECT count(*) FROM canvases) AS canvases, (SELECT count(*) FROM files) AS files,
                (SELECT count(*) FROM share_links) AS shares`,
      )
      .first()
    expect(counts).toEqual({ canvases: 2, files: 3, shares: 1 })
  })

  it('the database guards the new shape: held files stay, a deleted canvas takes its items', async () => {
    await db.exec('PRAGMA foreign_keys = ON')
    await expect(db.prepare(`DELETE FROM files WHERE file_id = 'f1'`).run()).rejects.toThrow(
      /FOREIGN KEY/,
    )
    await db.prepare(`DELETE FROM canvases WHERE canvas_id = 'c1'`).run()
    const left = await db.prepare('SELECT canvas_id FROM version_items').all()
    expect(left.results).toEqual([{ canvas_id: 'c2' }])
  })
})

describe('0005_sweep_and_list on the same database', () => {
  it('copies each canvas its current size, and a page of the list reads one index', async () => {
    await apply(migrations.find((name) => name.startsWith('0005'))!)
    const sizes = await db.prepare('SELECT canvas_id, size FROM canvases').all()
    expect(sizes.results).toEqual([{ canvas_id: 'c2', size: 30 }])
    const plan = await db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
           visibility, version, created_at, updated_at, expires_at, size FROM canvases
         WHERE workspace_id = ? AND (expires_at IS NULL OR expires_at > ?)
           AND (created_at, canvas_id) < (?, ?)
         ORDER BY created_at DESC, canvas_id DESC LIMIT 21`,
      )
      .bind('w1', 0, 99, 'zz')
      .all<{ detail: string }>()
    expect(plan.results.map((r) => r.detail).join('; ')).toMatch(
      /SEARCH canvases USING COVERING INDEX canvases_workspace_created_idx/,
    )
    // Every file is left for the sweep to examine once.
    const unchecked = await db
      .prepare('SELECT count(*) AS n FROM files WHERE checked_at IS NULL')
      .first('n')
    expect(unchecked).toBe(3)
  })
})

describe('0006_uploaded_at on the same database', () => {
  it('keeps every file, none yet seen uploaded, and finds deleting files by their own index', async () => {
    const before = await db.prepare('SELECT count(*) AS n FROM files').first('n')
    await apply(migrations.find((name) => name.startsWith('0006'))!)
    const after = await db
      .prepare('SELECT count(*) AS n, count(uploaded_at) AS seen FROM files')
      .first<{ n: number; seen: number }>()
    expect(after).toEqual({ n: before, seen: 0 })
    // The sweep's query, as sweep.ts spells it: only rows being deleted are in the index.
    const plan = await db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT file_id, blob_key, size FROM files
         WHERE status = 'deleting' LIMIT 500`,
      )
      .all<{ detail: string }>()
    expect(plan.results.map((r) => r.detail).join('; ')).toMatch(
      /SCAN files USING INDEX files_deleting_idx/,
    )
  })
})

describe('the later migrations, in order, on the same database', () => {
  it('each number is taken once, and drizzle-kit’s journal lists the files as they run', () => {
    const numbers = migrations.map((name) => name.slice(0, 4))
    expect(new Set(numbers).size).toBe(numbers.length)
    const journal = JSON.parse(readFileSync('drizzle/meta/_journal.json', 'utf8')) as {
      entries: { idx: number; tag: string; when: number }[]
    }
    expect(journal.entries.map((e) => `${e.tag}.sql`)).toEqual(migrations)
    expect(journal.entries.map((e) => e.idx)).toEqual(migrations.map((_, i) => i))
    // Drizzle's own migrator applies an entry only if it is newer than the last one applied.
    const whens = journal.entries.map((e) => e.when)
    expect(whens).toEqual([...whens].sort((a, b) => a - b))
  })

  it('apply after 0006 and keep every row; a webhook of the seeded workspace can be added', async () => {
    const count = () =>
      db
        .prepare(
          `SELECT (SELECT count(*) FROM canvases) AS canvases, (SELECT count(*) FROM versions)
             AS versions, (SELECT count(*) FROM files) AS files`,
        )
        .first()
    const before = await count()
    const later = migrations.filter((name) => name >= '0007')
    expect(later.length).toBeGreaterThanOrEqual(3)
    for (const name of later) await apply(name)
    expect(await count()).toEqual(before)
    await db.batch([
      db.prepare(`INSERT INTO webhooks VALUES ('h1', 'w1', 'https://a.example/', '[]', 's', 1)`),
      db.prepare(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, created_at)
           VALUES ('h1', 'e1', 'canvas.deleted', '{}', 1)`,
      ),
    ])
    const tables = await db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB '[ow]*'`)
      .all<{ name: string }>()
    expect(tables.results.map((t) => t.name).sort()).toEqual([
      'oauth_grants',
      'oauth_secrets',
      'webhook_deliveries',
      'webhooks',
      'workspaces',
    ])
  })
})
