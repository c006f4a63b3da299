import { applyD1Migrations, env } from 'cloudflare:test'

// Test files take turns on a runtime (isolate: false in vitest.config.ts): a runtime started
// for each file cost more than most files' tests. Each file still starts on an empty database and
// bucket, as on a runtime of its own: the tests count rows across all accounts, and run the sweep
// over everything. The tables stay, so the migrations already applied are not applied again.

const { results: tables } = await env.DB.prepare(
  `SELECT name FROM sqlite_master WHERE type = 'table'
     AND name NOT IN ('d1_migrations', 'sqlite_sequence') AND name NOT GLOB '_cf_*'`,
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
