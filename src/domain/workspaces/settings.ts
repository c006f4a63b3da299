import { eq, sql, type SQL } from 'drizzle-orm'
import type { Bindable } from '../../storage/db'
import { workspaces } from '../../storage/schema'
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

/** The settings of `workspaceId` that apply now, as the API shows them. */
export async function settingsOf(svc: Services, workspaceId: string) {
  const row = await svc.db
    .select({
      defaultTtl: workspaces.defaultTtl,
      quotaBytes: workspaces.quotaBytes,
      requireReview: workspaces.requireReview,
    })
    .from(workspaces)
    .where(eq(workspaces.workspaceId, workspaceId))
    .get()
  return {
    ...presentSettings(svc, row ?? { defaultTtl: null, quotaBytes: null }),
    require_review: row?.requireReview ?? false,
  }
}
