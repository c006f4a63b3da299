import { and, eq, exists, sql, type SQL } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { formatSize } from '../../lib/format'
import type { Bindable, Database } from '../../storage/db'
import { files, workspaceUsage, workspaces } from '../../storage/schema'
import type { Services } from '../services'

// A workspace's own settings (docs/teams.md#a-workspaces-settings): how long a new canvas lives
// unless asked otherwise, and how many bytes the workspace may store. Each is NULL on the row for
// the deployment's own (TEMP_CANVAS_TTL, WORKSPACE_QUOTA_BYTES).

const UNITS = [
  ['d', 86400],
  ['h', 3600],
  ['m', 60],
  ['s', 1],
] as const

/** Seconds as the API writes a duration: the largest unit that divides them (`604800` → `7d`). */
export function durationText(seconds: number): string {
  const [unit, size] = UNITS.find(([, size]) => seconds % size === 0)!
  return `${seconds / size}${unit}`
}

/** The seconds a new canvas of the workspace lives, from its row's `default_ttl`; null: kept. */
export const lifeOf = (svc: Services, defaultTtl: number | null) =>
  defaultTtl === null ? svc.settings.tempCanvasTtl : defaultTtl === 0 ? null : defaultTtl

/** The settings as the API shows them: what applies, the deployment's defaults resolved. */
export function presentSettings(
  svc: Services,
  row: { defaultTtl: number | null; quotaBytes: number | null },
) {
  const life = lifeOf(svc, row.defaultTtl)
  return {
    default_expires_in: life === null ? null : durationText(life),
    quota_bytes: row.quotaBytes ?? svc.settings.workspaceQuotaBytes,
  }
}

/**
 * The expiry of a canvas made now in `workspaceId`, as a statement reads it: `permanent` decides
 * when given; else the workspace's setting, else TEMP_CANVAS_TTL.
 */
export function expiryFor(
  svc: Services,
  workspaceId: string,
  now: number,
  permanent: boolean | undefined,
): SQL<number | null> {
  if (permanent === true) return sql`NULL`
  const deployment = svc.settings.tempCanvasTtl
  if (permanent === false) return sql`${now + deployment * 1000}`
  const ttl = sql`(SELECT ${workspaces.defaultTtl} FROM ${workspaces} WHERE ${workspaces.workspaceId} = ${workspaceId})`
  // A setting of 0 (kept) makes the sum NULL: the workspace's row read once.
  return sql`${now} + 1000 * nullif(coalesce(${ttl}, ${deployment}), 0)`
}

/**
 * That storing the content `sha256` of `size` bytes keeps the workspace within its quota, as a
 * condition of a statement whose FROM holds the workspace's row (`workspaces`): content it holds
 * already adds nothing; new content must fit beside what it stores. `fallback` is the
 * deployment's quota (WORKSPACE_QUOTA_BYTES), null for none.
 */
export function roomFor(
  db: Database,
  sha256: Bindable<string>,
  size: Bindable<number>,
  fallback: Bindable<number | null>,
): SQL {
  const quota = sql`coalesce(${workspaces.quotaBytes}, ${fallback})`
  const stored = db
    .select({ bytes: workspaceUsage.storedBytes })
    .from(workspaceUsage)
    .where(eq(workspaceUsage.workspaceId, workspaces.workspaceId))
  const held = db
    .select({ one: sql`1` })
    .from(files)
    .where(and(eq(files.workspaceId, workspaces.workspaceId), eq(files.sha256, sha256 as string)))
  return sql`(${quota} IS NULL OR coalesce((${stored}), 0) + ${size} <= ${quota} OR ${exists(held)})`
}

/** What the workspace stores, and may store (null: no limit). */
export async function quotaOf(svc: Services, workspaceId: string) {
  const row = await svc.db
    .select({ quota: workspaces.quotaBytes, stored: workspaceUsage.storedBytes })
    .from(workspaces)
    .leftJoin(workspaceUsage, eq(workspaceUsage.workspaceId, workspaces.workspaceId))
    .where(eq(workspaces.workspaceId, workspaceId))
    .get()
  return { used: row?.stored ?? 0, allowed: row?.quota ?? svc.settings.workspaceQuotaBytes }
}

export const quotaExceeded = (used: number, allowed: number, size: number) =>
  new AppError(
    'quota_exceeded',
    `the workspace stores ${formatSize(used)} of its ${formatSize(allowed)} quota ` +
      `(${used} of ${allowed} bytes); ${formatSize(size)} more would pass it: delete canvases ` +
      'or ask an admin to raise the quota',
  )

/**
 * Refuses `size` new bytes of the content `sha256` past the workspace's quota (413
 * `quota_exceeded`, saying what is used and allowed). One read; content already held passes.
 */
export async function requireRoom(
  svc: Services,
  workspaceId: string,
  sha256: string,
  size: number,
) {
  const { used, allowed } = await quotaOf(svc, workspaceId)
  if (allowed === null || used + size <= allowed) return
  const held = await svc.db
    .select({ one: sql`1` })
    .from(files)
    .where(and(eq(files.workspaceId, workspaceId), eq(files.sha256, sha256)))
    .get()
  if (!held) throw quotaExceeded(used, allowed, size)
}

/** The settings of `workspaceId` that apply now, as the API shows them. */
export async function settingsOf(svc: Services, workspaceId: string) {
  const row = await svc.db
    .select({ defaultTtl: workspaces.defaultTtl, quotaBytes: workspaces.quotaBytes })
    .from(workspaces)
    .where(eq(workspaces.workspaceId, workspaceId))
    .get()
  return presentSettings(svc, row ?? { defaultTtl: null, quotaBytes: null })
}
