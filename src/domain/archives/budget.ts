import { lte, sql } from 'drizzle-orm'
import { AppError } from '../../lib/errors'
import { formatSize } from '../../lib/format'
import { downloadBudgets } from '../../storage/schema'
import type { Services } from '../services'

// What an anonymous visitor may make the service send as archives, per client and hour: an
// archive is built at most once, but serving it is bytes all the same, and a visitor could ask
// for it again and again. Counted before the download starts, by the archive's whole size.

const HOUR = 3600_000

/**
 * Takes `bytes` from the client's budget for this hour, or refuses with 429 and when the budget
 * renews. One statement: concurrent downloads cannot pass the budget together.
 */
export async function chargeDownload(
  svc: Services,
  client: string,
  bytes: number,
  budget: number,
): Promise<void> {
  if (bytes > budget) {
    throw new AppError(
      'payload_too_large',
      `this archive (${formatSize(bytes)}) is more than a visitor may download in an hour (${formatSize(budget)}); download its files one by one`,
    )
  }
  const now = svc.now()
  const windowStart = Math.floor(now / HOUR) * HOUR
  const taken =
    (
      await svc.db
        .insert(downloadBudgets)
        .values({ client, windowStart, bytes })
        .onConflictDoUpdate({
          target: [downloadBudgets.client, downloadBudgets.windowStart],
          set: { bytes: sql`${downloadBudgets.bytes} + excluded.bytes` },
          setWhere: sql`${downloadBudgets.bytes} + excluded.bytes <= ${budget}`,
        })
        .returning({ bytes: downloadBudgets.bytes })
    ).length > 0
  if (taken) return
  const retry = Math.ceil((windowStart + HOUR - now) / 1000)
  throw new AppError(
    'rate_limited',
    `downloads of archives from this address are limited to ${formatSize(budget)} an hour; retry in ${Math.ceil(retry / 60)} min`,
    { 'Retry-After': String(retry) },
  )
}

/** The sweep's part: budgets of hours gone by. */
export const pastBudgets = (svc: Services, now: number, batch: number) =>
  svc.db
    .delete(downloadBudgets)
    .where(
      sql`rowid IN (SELECT rowid FROM ${downloadBudgets} WHERE ${lte(
        downloadBudgets.windowStart,
        Math.floor(now / HOUR) * HOUR - HOUR,
      )} LIMIT ${batch})`,
    )
    .returning({ client: downloadBudgets.client })
