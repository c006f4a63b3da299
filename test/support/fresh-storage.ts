import { applyD1Migrations, env } from 'cloudflare:test'

// Test files take turns on a runtime (isolate: false in vitest.config.ts): a runtime started
// for each file cost more than most files' tests. Each file still starts on an empty database and
// bucket, as on a runtime of its own: the tests count rows across all accounts, and run the sweep
// over everything. The tables stay, so the migrations already applied are not applied again.

// A full-text index (a virtual table and its own tables) is emptied by its triggers, with the
// rows it indexes.
const { results: tables } = await env.DB.prepare(
  `SELECT name FROM sqlite_master AS t WHERE type = 'table'
     AND name NOT IN ('d1_migrations', 'sqlite_sequence') AND name NOT GLOB '_cf_*'
     AND NOT EXISTS (SELECT 1 FROM sqlite_master AS v WHERE v.sql LIKE 'CREATE VIRTUAL TABLE%'
       AND (t.name = v.name OR t.name GLOB v.name || '_*'))`,
).all<{ name: string }>()
if (tables.length > 0) {
  await env.DB.batch([
    // Rows go in any order; the foreign keys are checked once all are gone.
    env.DB.prepare('PRAGMA defer_foreign_keys = on'),
    ...tables.map(({ name }) => env.DB.prepare(`DELETE FROM "${name}"`)),
  ])
}
let listed = await env.BUCKET.list({ limit: 1000 })
while (listed.objects.length > 0) {
  await env.BUCKET.delete(listed.objects.map((object) => object.key))
  listed = await env.BUCKET.list({ limit: 1000 })
}
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS)
