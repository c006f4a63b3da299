import { expect } from 'vitest'
import { call, json, newAccount, type Account } from './api'

// Teams in the tests (docs/teams.md): a workspace made through the API, a key for it made through
// a member's session, and a person who joined by an invite.

/** A new workspace of `owner`'s (its owner); answers its id. */
export async function newTeam(owner: Account, name = 'Team') {
  const res = await call('/v1/workspaces', { method: 'POST', key: owner.key, json: { name } })
  expect(res.status, await res.clone().text()).toBe(201)
  return (await json(res)).workspace_id as string
}

/** A key of `account`'s for the workspace `workspaceId`, with `scopes` (default: every scope). */
export async function keyIn(
  account: Account,
  workspaceId: string,
  name = 'team key',
  scopes?: string[],
) {
  const res = await call('/auth/keys', {
    method: 'POST',
    cookie: account.cookie,
    json: { name, workspace_id: workspaceId, ...(scopes && { scopes }) },
  })
  expect(res.status, await res.clone().text()).toBe(201)
  return (await json(res)).key as string
}

/** A new person who joined `workspaceId` as `role` by an invite of `owner`'s. */
export async function joinedAs(owner: Account, workspaceId: string, role: string) {
  const sent = await json(
    await call(`/v1/workspaces/${workspaceId}/invites`, {
      method: 'POST',
      key: owner.key,
      json: { role },
    }),
  )
  const person = await newAccount()
  const res = await call(`/auth/join/${sent.url.split('/join/')[1]}`, {
    method: 'POST',
    cookie: person.cookie,
  })
  expect(res.status).toBe(200)
  return { person, invite: sent }
}
