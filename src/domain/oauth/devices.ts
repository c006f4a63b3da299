import { and, eq, gt, lte, sql } from 'drizzle-orm'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import type { Scope } from '../../schema/requests'
import { deleteSome } from '../../storage/db'
import { deviceAuthorizations, users } from '../../storage/schema'
import type { Services } from '../services'
import type { Actor } from '../actor'
import { apiScopes, type OAuthScope } from './grants'

// The CLI's sign-in on a machine without a browser (RFC 8628, docs/cli.md#logging-in): the CLI
// asks for a device code and a short user code, shows the code, and polls; the person types the
// code on /oauth/device in any browser, picks the workspace and the access, and approves. The
// CLI's next poll gets an API key of that person's, made then, by the role they hold then.

/** A code stands this long; the CLI polls at most once per interval. */
export const DEVICE_CODE_TTL_S = 600
export const POLL_INTERVAL_S = 5

// RFC 8628 6.1: letters only, no vowels (no words), eight of twenty: 34 bits, against guesses
// limited per address and a code's ten minutes.
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ'
const CODE_LENGTH = 8

export type StartedDevice = {
  deviceCode: string
  userCode: string
  expiresIn: number
  interval: number
}

/** A new device authorization for the client, answered with both codes. */
export async function startDevice(
  svc: Services,
  client: { clientId: string; clientName: string },
  scopes: OAuthScope[],
): Promise<StartedDevice> {
  const now = svc.now()
  for (;;) {
    const deviceCode = randomBase62(40)
    const userCode = randomUserCode()
    const made = await svc.db
      .insert(deviceAuthorizations)
      .values({
        deviceCodeHash: await sha256Hex(deviceCode),
        userCode,
        clientId: client.clientId,
        clientName: client.clientName,
        scopes: apiScopes(scopes).join(','),
        createdAt: now,
        expiresAt: now + DEVICE_CODE_TTL_S * 1000,
        status: 'pending',
      })
      // A user code in use already (one in a billion): another one.
      .onConflictDoNothing()
      .returning({ userCode: deviceAuthorizations.userCode })
    if (made.length === 1) {
      return { deviceCode, userCode, expiresIn: DEVICE_CODE_TTL_S, interval: POLL_INTERVAL_S }
    }
  }
}

function randomUserCode(): string {
  let code = ''
  while (code.length < CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(CODE_LENGTH))) {
      // 240 is the largest multiple of 20 under 256: no letter more likely than another.
      if (byte < 240 && code.length < CODE_LENGTH) code += ALPHABET[byte % ALPHABET.length]
    }
  }
  return code
}

/** `WDJBMJHT` as people read it: `WDJB-MJHT`. */
export const shownUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`

/** A typed code as stored (case, spaces and dashes aside), or null when it cannot be one. */
export function normalizeUserCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, '')
  return code.length === CODE_LENGTH && [...code].every((ch) => ALPHABET.includes(ch)) ? code : null
}

/** The pending authorization of a user code: what asks, and for what; null when none stands. */
export async function pendingDevice(svc: Services, userCode: string) {
  const row = await svc.db
    .select({ clientName: deviceAuthorizations.clientName, scopes: deviceAuthorizations.scopes })
    .from(deviceAuthorizations)
    .where(pendingCode(userCode, svc.now()))
    .get()
  return row ? { clientName: row.clientName, write: row.scopes.includes('write') } : null
}

const pendingCode = (userCode: string, now: number) =>
  and(
    eq(deviceAuthorizations.userCode, userCode),
    eq(deviceAuthorizations.status, 'pending'),
    gt(deviceAuthorizations.expiresAt, now),
  )

/**
 * The person's answer to a pending code: approved for the actor's workspace with `scopes`, or
 * denied. False when the code no longer stands (used, decided, expired).
 */
export async function decideDevice(
  svc: Services,
  userCode: string,
  decision: { approve: false } | { approve: true; actor: Actor; scopes: Scope[] },
): Promise<boolean> {
  const values = decision.approve
    ? {
        status: 'approved' as const,
        userId: decision.actor.userId,
        workspaceId: decision.actor.workspaceId,
        approvedScopes: decision.scopes.join(','),
      }
    : { status: 'denied' as const }
  const decided = await svc.db
    .update(deviceAuthorizations)
    .set(values)
    .where(pendingCode(userCode, svc.now()))
    .returning({ userCode: deviceAuthorizations.userCode })
  return decided.length === 1
}

/** Whom an approved code was approved by, for what, and the name its key is to have. */
export type Approval = {
  userId: string
  workspaceId: string
  email: string
  displayName: string | null
  keyName: string
  scopes: Scope[]
}

export type Poll =
  | { outcome: 'pending' | 'slow_down' | 'denied' | 'expired' | 'unknown' }
  | { outcome: 'approved'; approval: Approval }

/**
 * The CLI's poll with its device code: still waiting (or too soon after the last poll), refused,
 * expired, or approved, once: an approved code is spent by the poll that finds it, which then
 * makes the key of the approval (http), by the role the person holds at that moment.
 */
export async function pollDevice(svc: Services, deviceCode: string, clientId: string) {
  const hash = await sha256Hex(deviceCode)
  const now = svc.now()
  const mine = and(
    eq(deviceAuthorizations.deviceCodeHash, hash),
    eq(deviceAuthorizations.clientId, clientId),
  )
  const row = await svc.db
    .select({
      status: deviceAuthorizations.status,
      expiresAt: deviceAuthorizations.expiresAt,
      polledAt: deviceAuthorizations.polledAt,
    })
    .from(deviceAuthorizations)
    .where(mine)
    .get()
  if (!row) return { outcome: 'unknown' } satisfies Poll
  if (row.expiresAt <= now) return { outcome: 'expired' } satisfies Poll
  if (row.status === 'pending') {
    await svc.db.update(deviceAuthorizations).set({ polledAt: now }).where(mine)
    const tooSoon = row.polledAt !== null && now - row.polledAt < POLL_INTERVAL_S * 1000
    return { outcome: tooSoon ? 'slow_down' : 'pending' } satisfies Poll
  }
  const [spent] = await svc.db
    .delete(deviceAuthorizations)
    .where(mine)
    .returning({
      status: deviceAuthorizations.status,
      userId: deviceAuthorizations.userId,
      workspaceId: deviceAuthorizations.workspaceId,
      clientName: deviceAuthorizations.clientName,
      scopes: deviceAuthorizations.approvedScopes,
      email: sql<
        string | null
      >`(SELECT ${users.email} FROM ${users} WHERE ${users.userId} = ${deviceAuthorizations.userId})`,
      displayName: sql<
        string | null
      >`(SELECT ${users.displayName} FROM ${users} WHERE ${users.userId} = ${deviceAuthorizations.userId})`,
    })
  if (!spent) return { outcome: 'unknown' } satisfies Poll
  if (spent.status !== 'approved' || !spent.userId || !spent.workspaceId || !spent.email) {
    return { outcome: 'denied' } satisfies Poll
  }
  const approval: Approval = {
    userId: spent.userId,
    workspaceId: spent.workspaceId,
    email: spent.email,
    displayName: spent.displayName,
    keyName: spent.clientName,
    scopes: (spent.scopes ?? 'read').split(',') as Scope[],
  }
  return { outcome: 'approved', approval } satisfies Poll
}

/** Codes past their ten minutes, deleted by the sweep. */
export const sweepDevices = (svc: Services, now: number, limit: number) =>
  deleteSome(
    svc.db,
    deviceAuthorizations,
    deviceAuthorizations.deviceCodeHash,
    lte(deviceAuthorizations.expiresAt, now),
    limit,
  )
