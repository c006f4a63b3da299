import type { Context } from 'hono'
import { createMiddleware } from 'hono/factory'
import { clientNetwork } from '../lib/addresses'
import { AppError } from '../lib/errors'
import { sha256Hex } from '../lib/crypto'
import type { AppEnv } from './context'

/** Per client IP, for routes anyone can call (login, signup, public share links). */
export const limitByIp = (
  binding: 'AUTH_LIMITER' | 'PUBLIC_LIMITER' | 'FRAME_LIMITER' | 'SITE_LIMITER',
) =>
  createMiddleware<AppEnv>(async (c, next) => {
    await limit(c.env[binding], `ip:${clientNetworkOf(c)}`)
    await next()
  })

/**
 * Who a per-client budget counts: the connecting address's network (lib/addresses.ts: an IPv4
 * address, an IPv6 /64), so that a client cannot reset its budgets by taking another address of
 * its own. Every limit and budget counted per client goes through here.
 */
export function clientNetworkOf(c: Context): string {
  return clientNetwork(c.req.header('CF-Connecting-IP') ?? 'local')
}

/** A client's address as it may be stored: hashed, so a table of budgets lists no addresses. */
export function clientKey(c: Context): Promise<string> {
  return sha256Hex(`client:${clientNetworkOf(c)}`)
}

const RETRY_AFTER_SECONDS = 60

export async function limit(limiter: RateLimit | undefined, key: string) {
  if (!(await withinLimit(limiter, key))) throw rateLimited()
}

/** Counts one request against the limiter; no binding (a test or an old config) means no limit. */
export async function withinLimit(limiter: RateLimit | undefined, key: string): Promise<boolean> {
  if (!limiter) return true
  return (await limiter.limit({ key })).success
}

export function rateLimited() {
  return new AppError('rate_limited', `too many requests; retry in ${RETRY_AFTER_SECONDS} s`, {
    'Retry-After': String(RETRY_AFTER_SECONDS),
  })
}

/**
 * Counts a comment or reply posted through a share link against its client address: visitors
 * have no account. Asked before the link is looked up, so a flood costs no database work.
 */
export const limitCommentPosts = (c: Context<AppEnv>) =>
  limit(c.env.COMMENT_LIMITER, `ip:${clientNetworkOf(c)}`)
