#!/usr/bin/env node
// `npm run bench:capacity`: what each thing a workspace holds costs in D1, measured through the
// API on the built Worker (Miniflare, its own D1): bytes of database per canvas, per further
// version and per share link, indexes included, and the rows each write read and wrote. The
// capacity model in docs/scaling.md is built from these figures.
//   node scripts/bench/capacity.mjs [--count 1000]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp } from '../lib/miniflare-service.mjs'
import { createAccount, fetchRetry as fetch } from '../lib/local-service.mjs'

const count = Number(process.argv.join(' ').match(/--count (\d+)/)?.[1] ?? 1000)
const work = mkdtempSync(join(tmpdir(), 'canvas-capacity-'))
const app = await startApp(work)
try {
  const db = await app.mf.getD1Database('DB')
  const size = async () => (await db.prepare('SELECT 1').run()).meta.size_after
  const { key } = await createAccount(app.url, 'capacity@example.com')
  const auth = { Authorization: `Bearer ${key}` }

  // A canvas: one multipart request, a file of its own (a title of 24 characters, as a CLI push
  // of `report-2026-11-23.md` gives).
  const before = await size()
  const ids = []
  for (let i = 0; i < count; i++) {
    const form = new FormData()
    form.append('file', new Blob([`# Report ${i}\n\n${'words '.repeat(40)}`]), `report-${i}.md`)
    form.append('title', `Quarterly report ${String(i).padStart(6, '0')}`)
    const res = await fetch(`${app.url}/v1/canvases`, { method: 'POST', headers: auth, body: form })
    if (res.status !== 201) throw new Error(`create: HTTP ${res.status} ${await res.text()}`)
    ids.push((await res.json()).canvas_id)
  }
  const afterCanvases = await size()

  // A version more of each: a new file, uploaded the same way.
  for (const [i, id] of ids.entries()) {
    const form = new FormData()
    form.append('file', new Blob([`# Report ${i}, revised\n\n${'words '.repeat(41)}`]), 'r.md')
    const res = await fetch(`${app.url}/v1/canvases/${id}`, {
      method: 'PATCH',
      headers: auth,
      body: form,
    })
    if (res.status !== 200) throw new Error(`update: HTTP ${res.status} ${await res.text()}`)
  }
  const afterVersions = await size()

  // A share link of each, with a password and an expiry.
  for (const id of ids) {
    const res = await fetch(`${app.url}/v1/canvases/${id}/shares`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ expires_in: '7d', password: 'correct horse' }),
    })
    if (res.status !== 201) throw new Error(`share: HTTP ${res.status} ${await res.text()}`)
  }
  const afterShares = await size()

  // A team: its members and invites, as the routes write them (ids of 20 characters, a token's
  // SHA-256), written here by SQL: a member needs an account, whose password hashing would be most
  // of the run. Each is measured on its own, after the people it names exist.
  const { workspace_id: team } = await (
    await fetch(`${app.url}/v1/workspaces`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Capacity team' }),
    })
  ).json()
  const people = Array.from({ length: count }, (_, i) => `person${String(i).padStart(14, '0')}`)
  const now = Date.now()
  await inBatches(people, (id) =>
    db
      .prepare('INSERT INTO users (user_id, email, password_hash, created_at) VALUES (?, ?, ?, ?)')
      .bind(id, `${id}@example.com`, 'x', now),
  )
  const beforeMembers = await size()
  await inBatches(people, (id, i) =>
    db
      .prepare('INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)')
      .bind(team, id, i % 10 === 0 ? 'editor' : 'viewer', now + i),
  )
  const afterMembers = await size()
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO invites (invite_id, workspace_id, token_hash, role, email, created_by,
           created_at, expires_at) VALUES (?, ?, ?, 'viewer', ?, ?, ?, ?)`,
      )
      .bind(
        `invite${String(i).padStart(14, '0')}`,
        team,
        i.toString(16).padStart(64, '0'),
        i % 2 ? `${id}@example.com` : null,
        people[0],
        now,
        now + 7 * 86400_000,
      ),
  )
  const afterInvites = await size()
  // The audit log: an event as a change writes it (a key's name and its person's name and email,
  // a canvas's id, its details).
  // Canvases, versions and links above carry theirs already, as every change does.
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO audit_events (event_id, workspace_id, at, actor_kind, actor_user_id,
           actor_name, actor_person_name, actor_email, action, target_type, target_id, details)
         VALUES (?, ?, ?, 'key', ?, 'ci deploy key', ?, ?, 'canvas.version_created', 'canvas', ?,
           ?)`,
      )
      .bind(
        `event${String(i).padStart(15, '0')}`,
        team,
        now + i,
        people[0],
        'Ada Lovelace',
        `${people[0]}@example.com`,
        `canvas${String(i).padStart(14, '0')}`,
        JSON.stringify({ version: 2 }),
      ),
  )
  const afterEvents = await size()
  // A person as their identity provider knows them: an issuer's URL and a subject of 21 digits,
  // as Google's are.
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO identities (issuer, subject, user_id, created_at, last_seen_at)
         VALUES ('https://accounts.google.com', ?, ?, ?, ?)`,
      )
      .bind(String(100000000000000000000n + BigInt(i)), id, now, now),
  )
  const afterIdentities = await size()
  // A password reset link: a token's SHA-256, the person, the team and who made it.
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO password_resets (token_hash, user_id, workspace_id, created_by, created_at,
           expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .bind(i.toString(16).padStart(64, '0'), id, team, people[0], now, now + 86400_000),
  )
  const afterResets = await size()
  // A device sign-in waiting for its approval: a device code's SHA-256, the user code, the app.
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO device_authorizations (device_code_hash, user_code, client_id, client_name,
           scopes, created_at, expires_at, status) VALUES (?, ?, ?, ?, 'read,write', ?, ?, 'pending')`,
      )
      .bind(
        'd' + i.toString(16).padStart(63, '0'),
        `BCDF${String(i).padStart(4, '0')}`,
        'XxTMfE01vI-ltRru',
        'svc on build-box',
        now,
        now + 600_000,
      ),
  )
  const afterDevices = await size()
  // An API key as the CLI's sign-in makes it: bound to the workspace, with the role kept on it.
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO api_keys (key_id, workspace_id, user_id, name, prefix, key_hash, scopes, role,
           origin, created_at, last_used_at) VALUES (?, ?, ?, 'svc on build-box', ?, ?,
           'read,write', 'editor', 'device', ?, ?)`,
      )
      .bind(
        `key${String(i).padStart(17, '0')}`,
        team,
        id,
        `svc_${String(i).padStart(8, '0')}`,
        'k' + i.toString(16).padStart(63, '0'),
        now,
        now,
      ),
  )
  const afterKeys = await size()
  // A session of the web app, as one moved out of a workspace its person was removed from keeps
  // it: the workspace it left, until its next page says so.
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO sessions (session_hash, session_id, user_id, workspace_id, created_at,
           expires_at, left_workspace) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        's' + i.toString(16).padStart(63, '0'),
        `session${String(i).padStart(13, '0')}`,
        id,
        team,
        now,
        now + 30 * 86400_000,
        team,
      ),
  )
  const afterSessions = await size()
  // A canvas's entry in the search index, for 4 KB of text (a page of a report: words drawn from
  // a vocabulary of 5,000, as prose repeats its words), written as a version writes it: into
  // canvas_texts, whose triggers index it (the FTS5 index's own tables included).
  const vocabulary = Array.from({ length: 5000 }, (_, i) => wordOf(i))
  let seed = 7
  const next = () => (seed = (seed * 48271) % 2147483647)
  const text = () => {
    const words = []
    for (let length = 0; length < 4096; length += words.at(-1).length + 1) {
      // Zipf-like: a few words often, most words rarely.
      words.push(vocabulary[Math.floor(5000 ** (next() / 2147483647)) - 1])
    }
    return words.join(' ').slice(0, 4096)
  }
  const beforeTexts = await size()
  await inBatches(people, (id) =>
    db
      .prepare(
        `INSERT INTO canvas_texts (canvas_id, workspace_id, title, body) VALUES (?, ?, ?, ?)`,
      )
      .bind(`text${id}`, team, `Quarterly report ${id.slice(-6)}`, text()),
  )
  const afterTexts = await size()
  // A review of a canvas's version naming two reviewers, with their two decisions, as the domain
  // writes them (domain/reviews/reviews.ts): a note of 40 characters.
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO reviews (review_id, canvas_id, workspace_id, version, state, requested_by,
           reviewers, note, created_at, decided_at)
         VALUES (?, ?, ?, 2, 'approved', ?, ?, ?, ?, ?)`,
      )
      .bind(
        `review${String(i).padStart(14, '0')}`,
        ids[i % ids.length],
        team,
        people[0],
        JSON.stringify([people[1], people[2]]),
        'Please check the figures on the 2nd page',
        now + i,
        now + i + 60_000,
      ),
  )
  const afterReviews = await size()
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO review_decisions (review_id, user_id, decision, comment_id, decided_at)
         VALUES (?, ?, 'approve', NULL, ?), (?, ?, 'approve', NULL, ?)`,
      )
      .bind(
        `review${String(i).padStart(14, '0')}`,
        people[1],
        now + i,
        `review${String(i).padStart(14, '0')}`,
        people[2],
        now + i,
      ),
  )
  const afterDecisions = await size()

  // A canvas's day of reads as its object writes them (live/view-tally.ts), with its workspace and
  // its indexes (by day, the workspace's covering one, and the day's row in the dashboard's week
  // index): the day's counts, one version's, one link's; and a member's last read.
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO canvas_views (canvas_id, workspace_id, day, kind, key, views, readers, last_at)
         SELECT ?1, workspace_id, ?2, 'day', '', 12, 7, ?3 FROM canvases WHERE canvas_id = ?1
         UNION ALL SELECT ?1, workspace_id, ?2, 'version', '2', 12, 7, ?3 FROM canvases WHERE canvas_id = ?1
         UNION ALL SELECT ?1, workspace_id, ?2, 'link', 'aB3dE9', 9, 5, ?3 FROM canvases WHERE canvas_id = ?1`,
      )
      .bind(ids[i % ids.length], 20_000 + Math.floor(i / ids.length), now + i),
  )
  const afterViews = await size()
  await inBatches(people, (id, i) =>
    db
      .prepare(
        `INSERT INTO canvas_member_views (canvas_id, user_id, last_viewed_at, last_version)
         VALUES (?, ?, ?, 2)`,
      )
      .bind(ids[i % ids.length], id, now + i),
  )
  const afterMemberViews = await size()
  // A revoked link remembered for 30 days, so that its opens count as refused ones.
  await inBatches(people, (id, i) =>
    db
      .prepare('INSERT INTO revoked_links (token, canvas_id, revoked_at) VALUES (?, ?, ?)')
      .bind(`revoked${String(i).padStart(15, '0')}`, ids[i % ids.length], now + i),
  )
  const afterRevoked = await size()

  const rows = await db
    .prepare(
      `SELECT (SELECT count(*) FROM canvases) AS canvases, (SELECT count(*) FROM versions) AS versions,
              (SELECT count(*) FROM version_items) AS items, (SELECT count(*) FROM files) AS files,
              (SELECT count(*) FROM share_links) AS shares, (SELECT count(*) FROM members) AS members,
              (SELECT count(*) FROM invites) AS invites,
              (SELECT count(*) FROM audit_events) AS audit_events,
              (SELECT count(*) FROM identities) AS identities,
              (SELECT count(*) FROM password_resets) AS password_resets,
              (SELECT count(*) FROM device_authorizations) AS device_authorizations,
              (SELECT count(*) FROM api_keys) AS api_keys, (SELECT count(*) FROM sessions) AS sessions,
              (SELECT count(*) FROM canvas_texts) AS search_entries,
              (SELECT count(*) FROM reviews) AS reviews,
              (SELECT count(*) FROM review_decisions) AS review_decisions,
              (SELECT count(*) FROM canvas_views) AS canvas_views,
              (SELECT count(*) FROM canvas_member_views) AS member_views,
              (SELECT count(*) FROM revoked_links) AS revoked_links`,
    )
    .first()
  const per = (a, b) => Math.round((b - a) / count)
  console.log(
    JSON.stringify(
      {
        count,
        rows,
        database_bytes: afterRevoked,
        bytes_per_canvas: per(before, afterCanvases),
        bytes_per_version: per(afterCanvases, afterVersions),
        bytes_per_share: per(afterVersions, afterShares),
        bytes_per_member: per(beforeMembers, afterMembers),
        bytes_per_invite: per(afterMembers, afterInvites),
        bytes_per_audit_event: per(afterInvites, afterEvents),
        bytes_per_identity: per(afterEvents, afterIdentities),
        bytes_per_password_reset: per(afterIdentities, afterResets),
        bytes_per_device_sign_in: per(afterResets, afterDevices),
        bytes_per_api_key: per(afterDevices, afterKeys),
        bytes_per_session: per(afterKeys, afterSessions),
        bytes_per_search_entry_of_4_kb: per(beforeTexts, afterTexts),
        bytes_per_review: per(afterTexts, afterReviews),
        bytes_per_review_with_two_decisions: per(afterTexts, afterDecisions),
        bytes_per_canvas_day_of_reads: per(afterDecisions, afterViews),
        bytes_per_member_last_read: per(afterViews, afterMemberViews),
        bytes_per_revoked_link: per(afterMemberViews, afterRevoked),
      },
      null,
      2,
    ),
  )
  /** A made-up word of 3 to 10 letters, the same for the same number. */
  function wordOf(i) {
    let word = ''
    for (let n = i * 2654435761; word.length < 3 + (i % 8); n = Math.floor(n / 26)) {
      word += String.fromCharCode(97 + (n % 26))
    }
    return word
  }
  /** Runs a statement for each item, 100 to a batch. */
  async function inBatches(items, statement) {
    for (let i = 0; i < items.length; i += 100) {
      await db.batch(items.slice(i, i + 100).map((item, j) => statement(item, i + j)))
    }
  }
} finally {
  await app.stop()
  rmSync(work, { recursive: true, force: true })
}
