import fc from 'fast-check'
import { expect, it } from 'vitest'
import { call, json, newAccount, newCanvas, type Account } from './support/api'
import { runs } from './support/runs'
import { keyIn } from './support/teams'

// Roles hold at every request (docs/teams.md): over any sequence of role changes, removals,
// rejoinings and requests by the members' keys, no request succeeds beyond the role its member
// holds at that moment, and none that the role allows fails.

const ROLES = ['viewer', 'editor', 'admin'] as const
type Role = (typeof ROLES)[number]

type Step =
  | { kind: 'role'; who: number; role: Role }
  | { kind: 'remove'; who: number }
  | { kind: 'rejoin'; who: number; role: Role }
  | { kind: 'request'; who: number; needs: 'read' | 'write' | 'admin' }

const who = fc.integer({ min: 0, max: 2 })
const role = fc.constantFrom(...ROLES)
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('role' as const), who, role }),
  fc.record({ kind: fc.constant('remove' as const), who }),
  fc.record({ kind: fc.constant('rejoin' as const), who, role }),
  fc.record({
    kind: fc.constant('request' as const),
    who,
    needs: fc.constantFrom('read' as const, 'write' as const, 'admin' as const),
  }),
  fc.record({
    kind: fc.constant('request' as const),
    who,
    needs: fc.constantFrom('read' as const, 'write' as const, 'admin' as const),
  }),
)

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 }
const allowed = (held: Role | null, needs: 'read' | 'write' | 'admin') =>
  held !== null && RANK[held] >= { read: 0, write: 1, admin: 2 }[needs]

it('no request by a member’s key succeeds beyond the role held at that moment', async () => {
  const owner = await newAccount()
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
      const team = await json(
        await call('/v1/workspaces', { method: 'POST', key: owner.key, json: { name: 'P' } }),
      )
      const base = `/v1/workspaces/${team.workspace_id}`
      const ownerKey = await keyIn(owner, team.workspace_id, 'property', ['read', 'write'])
      const canvas = await newCanvas(ownerKey, 'the team canvas')
      type Person = { account: Account; key: string | null; writes: boolean; held: Role | null }
      const people: Person[] = []
      for (let i = 0; i < 3; i++) {
        people.push({ account: await newAccount(), key: null, writes: false, held: null })
        await join(people[i], 'editor')
      }

      async function join(person: Person, as: Role) {
        const made = await json(
          await call(`${base}/invites`, { method: 'POST', key: owner.key, json: { role: as } }),
        )
        const token = made.url.split('/join/')[1]
        const res = await call(`/auth/join/${token}`, {
          method: 'POST',
          cookie: person.account.cookie,
        })
        expect(res.status).toBe(200)
        // A key made while an editor or above writes; a viewer's reads only.
        person.writes = as !== 'viewer'
        person.key = await keyIn(person.account, team.workspace_id, 'property', [
          'read',
          ...(person.writes ? ['write'] : []),
        ])
        person.held = as
      }

      async function request(key: string, needs: 'read' | 'write' | 'admin') {
        if (needs === 'read') return call(`/v1/canvases/${canvas.canvas_id}`, { key })
        if (needs === 'admin') return call(`${base}/invites`, { key })
        return call(`/v1/canvases/${canvas.canvas_id}`, {
          method: 'PATCH',
          key,
          json: { title: `by ${key.slice(4, 10)}` },
        })
      }

      for (const s of steps) {
        const person = people[s.who]
        const path = `${base}/members/${person.account.userId}`
        if (s.kind === 'role' && person.held !== null) {
          const res = await call(path, { method: 'PATCH', key: owner.key, json: { role: s.role } })
          expect(res.status).toBe(200)
          person.held = s.role
        } else if (s.kind === 'remove' && person.held !== null) {
          expect((await call(path, { method: 'DELETE', key: owner.key })).status).toBe(200)
          person.held = null
        } else if (s.kind === 'rejoin' && person.held === null) {
          await join(person, s.role)
        } else if (s.kind === 'request' && person.key !== null) {
          const res = await request(person.key, s.needs)
          const where = `${s.needs} by a member held ${person.held}`
          // The key's own scopes bound it too: a key made as a viewer never writes.
          const scoped = s.needs !== 'write' || person.writes
          if (allowed(person.held, s.needs) && scoped) expect(res.status, where).toBe(200)
          else expect([401, 403], where).toContain(res.status)
          // A removed member's key stays revoked, whatever comes after.
          if (person.held === null) expect(res.status, where).toBe(401)
        }
      }
    }),
    { numRuns: runs(25) },
  )
  // Every run makes accounts, a team and keys: a loaded fresh-clone run took over 60 s.
}, 180_000)
