import { readdirSync, readFileSync } from 'node:fs'
import { build } from 'esbuild'
import { convertV4MiniflareOptions, Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// Migrations run on databases that already hold canvases: this one is seeded at the schema before
// sites (migrations 0000-0003) in workerd's own D1, then migrated, and nothing may be lost. The
// Worker is test/support/usage-worker.ts: usage, by the running totals or by counting every row.

let mf: Miniflare
let db: Awaited<ReturnType<Miniflare['getD1Database']>>

const migrations = readdirSync('drizzle')
  .filter((name) => name.endsWith('.sql'))
  .sort()
const usageTotals = migrations.find((name) => name.endsWith('_usage_totals.sql'))!

async function apply(name: string) {
  const text = readFileSync(`drizzle/${name}`, 'utf8')
  const statements = text
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter(Boolean)
  await db.batch(statements.map((s) => db.prepare(s)))
}

beforeAll(async () => {
  const bundle = await build({
    entryPoints: ['test/support/usage-worker.ts'],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
  })
  mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: bundle.outputFiles[0].text,
      d1Databases: ['DB'],
      r2Buckets: ['BUCKET'],
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
    const later = migrations.filter((name) => name >= '0007' && name < usageTotals)
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

type Answer = { canvases: { total: number }; shares: { active: number } }

/** Usage of `workspace` at `now`, from the running totals or by counting every row. */
async function usageOf(how: 'totals' | 'recount', workspace: string, now: number) {
  const res = await mf.dispatchFetch(`http://usage.test/${how}?workspace=${workspace}&now=${now}`)
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

// The instants the answers are compared at: before, at and after each expiry seeded below.
const INSTANTS = [0, 89, 90, 95, 100, 110, 120, 150, 199, 200, 250, 300, 400]

/** Each workspace's usage at each instant. */
const answers = (how: 'totals' | 'recount', workspaces: string[]) =>
  Promise.all(workspaces.flatMap((w) => INSTANTS.map((now) => usageOf(how, w, now))))

describe('the usage totals on the same database', () => {
  it('answer what counting every row answered before the upgrade, at every instant', async () => {
    // A second workspace with one of each: permanent and temporary, public and private canvases,
    // one expired at 100 and not yet swept, versions, files ready, pending and being removed,
    // links with and without an expiry or a view limit, used up, of the expired canvas, unnamed.
    const seed = [
      `INSERT INTO users VALUES ('u2', 'b@example.com', 'h', 1)`,
      `INSERT INTO workspaces VALUES ('w2', 'b', 'u2', 1)`,
      `INSERT INTO files (file_id, workspace_id, sha256, size, mime, blob_key, status, created_at, touched_at)
         VALUES ('g1', 'w2', 'a1', 5, 'text/plain', 'files/w2/a1', 'ready', 1, 1),
                ('g2', 'w2', 'a2', 7, 'text/plain', 'files/w2/a2', 'ready', 1, 1),
                ('g3', 'w2', 'a3', 11, 'text/plain', 'files/w2/a3', 'ready', 1, 1),
                ('g4', 'w2', 'a4', 13, 'text/plain', 'files/w2/a4', 'ready', 1, 1),
                ('g5', 'w2', 'a5', 3, 'text/plain', 'files/w2/a5', 'pending', 1, 1),
                ('g6', 'w2', 'a6', 23, 'text/plain', 'files/w2/a6', 'deleting', 1, 1)`,
      `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
                             visibility, version, created_at, updated_at, expires_at, size)
         VALUES ('p1', 'w2', 'u2', 'a', 'txt', 'text', 'private', 2, 1, 1, NULL, 7),
                ('p2', 'w2', 'u2', 'b', 'txt', 'text', 'public', 1, 1, 1, NULL, 11),
                ('t1', 'w2', 'u2', 'c', 'txt', 'text', 'public', 1, 1, 1, 200, 13),
                ('t2', 'w2', 'u2', 'd', 'txt', 'text', 'private', 2, 1, 1, 100, 7)`,
      `INSERT INTO versions (canvas_id, version, file_id, size, created_at)
         VALUES ('p1', 1, 'g1', 5, 1), ('p1', 2, 'g2', 7, 1), ('p2', 1, 'g3', 11, 1),
                ('t1', 1, 'g4', 13, 1), ('t2', 1, 'g1', 5, 1), ('t2', 2, 'g2', 7, 1)`,
      `INSERT INTO share_links (token, canvas_id, max_views, view_count, created_at, expires_at)
         VALUES ('s1', 'p1', NULL, 0, 1, NULL), ('s2', 'p1', NULL, 0, 1, 120),
                ('s3', 'p2', 2, 2, 1, NULL), ('s4', 'p2', 3, 1, 1, 300),
                ('s5', 't1', NULL, 0, 1, NULL), ('s6', 't2', NULL, 0, 1, NULL),
                ('s7', 't2', 1, 0, 1, 90), ('s8', NULL, NULL, 0, 1, NULL)`,
    ]
    await db.batch(seed.map((s) => db.prepare(s)))
    const workspaces = ['w1', 'w2']
    const before = await answers('recount', workspaces)
    expect(before.some((u) => u.shares.active > 0 && u.canvases.total > 0)).toBe(true)

    await apply(usageTotals)
    expect(await answers('recount', workspaces)).toEqual(before)
    expect(await answers('totals', workspaces)).toEqual(before)
  })

  it('stay the same through the later migrations, which keep every comment and its counts', async () => {
    // Comments of the seeded canvases, one with a reply, before comments are made anew (0012).
    await db.batch(
      [
        `INSERT INTO comments (canvas_id, comment_id, parent_id, version, body, author_name,
                               author_kind, status, created_at)
           VALUES ('p1', 'k1', NULL, 1, 'top', 'a@example.com', 'owner', 'open', 1),
                  ('p1', 'k2', 'k1', 1, 'reply', 'Bo', 'visitor', NULL, 2),
                  ('t2', 'k3', NULL, 2, 'other', 'Bo', 'visitor', 'open', 3)`,
      ].map((q) => db.prepare(q)),
    )
    const comments = () =>
      db
        .prepare(
          `SELECT canvas_id, comment_id, parent_id, body, reply_count,
                  (SELECT comment_count FROM canvases c WHERE c.canvas_id = m.canvas_id) AS count
             FROM comments m ORDER BY comment_id`,
        )
        .all()
    const workspaces = ['w1', 'w2']
    const before = await answers('recount', workspaces)
    const had = (await comments()).results
    expect(had.map((c: any) => [c.comment_id, c.reply_count, c.count])).toEqual([
      ['k1', 1, 1],
      ['k2', 0, 1],
      ['k3', 0, 1],
    ])
    const after = migrations.filter((name) => name > usageTotals)
    expect(after.length).toBeGreaterThanOrEqual(1)
    for (const name of after) await apply(name)
    expect((await comments()).results).toEqual(had)
    expect(await answers('recount', workspaces)).toEqual(before)
    expect(await answers('totals', workspaces)).toEqual(before)
    // The canvases carry their versions' count and bytes, the versions their workspace.
    const carried = await db
      .prepare(
        `SELECT canvas_id, version_count, content_bytes FROM canvases WHERE workspace_id = 'w2'
           ORDER BY canvas_id`,
      )
      .all()
    expect(carried.results).toEqual([
      { canvas_id: 'p1', version_count: 2, content_bytes: 12 },
      { canvas_id: 'p2', version_count: 1, content_bytes: 11 },
      { canvas_id: 't1', version_count: 1, content_bytes: 13 },
      { canvas_id: 't2', version_count: 2, content_bytes: 12 },
    ])
    const unplaced = await db
      .prepare(
        `SELECT count(*) AS n FROM versions WHERE workspace_id <> 'w2' AND canvas_id LIKE '_%'
                  AND canvas_id IN (SELECT canvas_id FROM canvases WHERE workspace_id = 'w2')`,
      )
      .first<{ n: number }>()
    expect(unplaced!.n).toBe(0)
    // Each workspace so far is its owner's own, and its owner its one member (0013_teams).
    const members = await db
      .prepare(
        `SELECT w.workspace_id, w.personal, m.user_id, m.role FROM workspaces w
           JOIN members m ON m.workspace_id = w.workspace_id ORDER BY w.workspace_id`,
      )
      .all()
    expect(members.results).toEqual([
      { workspace_id: 'w1', personal: 1, user_id: 'u1', role: 'owner' },
      { workspace_id: 'w2', personal: 1, user_id: 'u2', role: 'owner' },
    ])
  })

  it('are kept by every write, whoever makes it: SQL here, without the Worker', async () => {
    const writes = [
      `INSERT INTO users (user_id, email, password_hash, created_at) VALUES ('u3', 'c@example.com', 'h', 1)`,
      `INSERT INTO workspaces (workspace_id, name, owner_user_id, created_at) VALUES ('w3', 'c', 'u3', 1)`,
      `INSERT INTO canvases (canvas_id, workspace_id, owner_user_id, title, ext, renderer_id,
                             visibility, version, created_at, updated_at, expires_at, size)
         VALUES ('n1', 'w2', 'u2', 'e', 'txt', 'text', 'public', 1, 1, 1, 150, 5)`,
      `INSERT INTO versions (canvas_id, version, file_id, size, created_at) VALUES ('n1', 1, 'g1', 5, 1)`,
      `INSERT INTO share_links (token, canvas_id, created_at, expires_at) VALUES ('s9', 'n1', 1, 130)`,
      `UPDATE share_links SET view_count = 3 WHERE token = 's4'`,
      `UPDATE canvases SET visibility = 'private', expires_at = NULL WHERE canvas_id = 't1'`,
      `UPDATE files SET status = 'ready' WHERE file_id = 'g5'`,
      `UPDATE files SET status = 'deleting' WHERE file_id = 'g4'`,
      // A version written without its workspace, as the code before 0012 wrote them.
      `INSERT INTO versions (canvas_id, version, file_id, size, created_at) VALUES ('n1', 2, 'g2', 7, 1)`,
      `INSERT INTO versions (canvas_id, version, file_id, size, created_at, workspace_id)
         VALUES ('p2', 2, 'g2', 7, 1, 'w2')`,
      // Removed as the sweep removes a canvas, in one transaction: its versions, comments and
      // links first (versions go only with their canvas, whose row counts them).
      [
        `DELETE FROM versions WHERE canvas_id = 'p1'`,
        `DELETE FROM comments WHERE canvas_id = 'p1'`,
        `DELETE FROM share_links WHERE canvas_id = 'p1'`,
        `DELETE FROM canvases WHERE canvas_id = 'p1'`,
      ],
      // And by SQL of someone's own, all at once: what it holds goes by cascade.
      `DELETE FROM canvases WHERE canvas_id = 't2'`,
      // The sweep's settling, at 150: asked about 110, the link s9 still counts.
      `UPDATE share_expiries SET settled = 1 WHERE expires_at <= 150`,
    ]
    const workspaces = ['w1', 'w2', 'w3']
    for (const write of writes) {
      await db.batch([write].flat().map((q) => db.prepare(q)))
      expect(await answers('totals', workspaces), String(write)).toEqual(
        await answers('recount', workspaces),
      )
    }
  })
})
