import { DurableObject } from 'cloudflare:workers'
import { logInfo } from '../lib/log'
import {
  LIVE_CLOSE_CODES,
  type GoneReason,
  LIVE_APPROVED_HEADER,
  LIVE_CANVAS_EXPIRES_HEADER,
  LIVE_LINK_EXPIRES_HEADER,
  LIVE_TAGS_HEADER,
  LIVE_UP_TO_HEADER,
  LIVE_VERSION_HEADER,
  type LiveAudience,
  type LiveEvent,
  type LiveNotice,
  type WaitOutcome,
} from '../lib/live-events'
import { dayOf, VIEW_WRITE_INTERVAL_MS, type ViewEvent } from '../lib/views'
import {
  forgetReaders,
  hasTally,
  readersKeptUntil,
  restoreTally,
  takeTally,
  tallyStatements,
  tallyViews,
} from './view-tally'

// One Durable Object per canvas holds the WebSockets of everyone looking at it, and tells them
// when a new version lands or their access ends. It uses the WebSocket Hibernation API: between
// events the object leaves memory and its sockets stay open, so idle viewers cost nothing; pings
// are answered by the runtime without waking it.
//
// Access that ends by itself (a share link's expiry, a temporary canvas's) ends its sockets too.
// Each socket keeps its expiries in its attachment, which survives hibernation, and the object
// keeps one alarm at the earliest of them: the alarm wakes it, closes the sockets whose time has
// come and sets itself for the next. No timer lives in memory.

/**
 * What a socket keeps of its access: when it ends by itself (milliseconds since the epoch; null:
 * never), and for a link pinned to a version, that version (its socket hears of comments made on
 * it or before, and of no new version; absent or null: it follows the latest).
 */
type Expiries = {
  canvas: number | null
  link: number | null
  upTo?: number | null
  /** It shows the approved version: `upTo` is that, and moves when another is approved. */
  approved?: true
}

// An alarm is set at most this far ahead: one further off is set again when this one comes, so an
// expiry of any size never makes a date the runtime refuses.
const ALARM_HORIZON_MS = 365 * 24 * 3600 * 1000

// When the object next writes its reads to D1 (none pending: unset), when it last did, and its
// canvas's id, which the write names. The reads themselves are in its SQLite (view-tally.ts).
const FLUSH_KEY = 'views:flush_at'
const WRITTEN_KEY = 'views:written_at'
const CANVAS_KEY = 'canvas_id'

/** "Service restart" (RFC 6455): not an end of access, so a page reconnects at once. */
const RECONNECT_CODE = 1012

export class CanvasLive extends DurableObject<Env> {
  /** Callers waiting for the next comment (waitForComment), by the tags of their credential. */
  private waiters = new Map<(outcome: WaitOutcome) => void, string[]>()
  /** When this object last heard of a comment, since it came into memory. */
  private lastComment = 0

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'))
  }

  /**
   * A viewer's socket, whose access the Worker has checked; it is told the current version, and
   * is closed when its access expires.
   */
  async fetch(request: Request): Promise<Response> {
    const tags = parseTags(request.headers.get(LIVE_TAGS_HEADER))
    const version = Number(request.headers.get(LIVE_VERSION_HEADER))
    const canvas = parseExpiry(request.headers.get(LIVE_CANVAS_EXPIRES_HEADER))
    const link = parseExpiry(request.headers.get(LIVE_LINK_EXPIRES_HEADER))
    const upTo = parseExpiry(request.headers.get(LIVE_UP_TO_HEADER))
    if (canvas === undefined || link === undefined || upTo === undefined) {
      return new Response('an expiry or version must be a whole number', { status: 400 })
    }
    const pair = new WebSocketPair()
    const socket = pair[1]
    this.ctx.acceptWebSocket(socket, tags)
    const approved = request.headers.get(LIVE_APPROVED_HEADER) === '1'
    socket.serializeAttachment({
      canvas,
      link,
      ...(upTo !== null && { upTo }),
      ...(approved && { approved }),
    } satisfies Expiries)
    const expiry = expiryOf(socket)
    if (expiry !== null && expiry <= Date.now()) {
      // Expired between the Worker's check and now: the page is told so rather than left retrying.
      end(socket, 'expired')
    } else {
      // A page that reconnects after missing a version catches up at once.
      if (Number.isSafeInteger(version) && version > 0) {
        socket.send(JSON.stringify({ type: 'version', version } satisfies LiveEvent))
      }
      if (expiry !== null) await this.alarmBy(expiry)
    }
    return new Response(null, { status: 101, webSocket: pair[0] })
  }

  /** Sends the event to its audience; an end of access also closes their sockets. */
  async notify(notice: LiveNotice, audience: LiveAudience = 'all'): Promise<number> {
    if (notice.type === 'permanent') return this.keep()
    if (notice.type === 'review') return this.newsHeard()
    if (notice.type === 'reconnect') return this.reconnectReaders()
    if (notice.type === 'comment' || notice.type === 'comment_deleted') this.newsHeard()
    const sockets = audience === 'all' ? this.ctx.getWebSockets() : this.ctx.getWebSockets(audience)
    const message = JSON.stringify(notice)
    const now = Date.now()
    for (const socket of sockets) {
      const expiry = expiryOf(socket)
      // An alarm can run late; a socket whose access has expired hears nothing more meanwhile.
      if (expiry !== null && expiry <= now) {
        end(socket, 'expired')
        continue
      }
      if (notice.type === 'gone') end(socket, notice.reason)
      else if (notice.type === 'approved') approve(socket, notice.version)
      else if (hears(socket, notice)) sendTo(socket, message)
    }
    return sockets.length
  }

  /**
   * Resolves `comment` as soon as a comment of the canvas changes (one heard after `sinceMs`
   * counts at once), `timeout` after `timeoutMs`, `ended` when the waiter's credential (by its
   * `tags`) ends first. An agent's long poll: it holds a promise and a timer, no CPU.
   */
  waitForComment(sinceMs: number, timeoutMs: number, tags: string[] = []): Promise<WaitOutcome> {
    if (this.lastComment > sinceMs) return Promise.resolve('comment')
    return new Promise((resolve) => {
      const wake = (outcome: WaitOutcome) => {
        clearTimeout(timer)
        this.waiters.delete(wake)
        resolve(outcome)
      }
      const timer = setTimeout(() => wake('timeout'), timeoutMs)
      this.waiters.set(wake, tags)
    })
  }

  /** Closes the readers' sockets (links, public visitors) with a code their pages reconnect on. */
  private reconnectReaders() {
    const sockets = [...this.ctx.getWebSockets('share'), ...this.ctx.getWebSockets('public')]
    for (const socket of sockets) {
      try {
        socket.close(RECONNECT_CODE, 'reconnect')
      } catch {
        // Closed already.
      }
    }
    return sockets.length
  }

  /** A comment changed or a review was decided: every wait on the canvas looks again. */
  private newsHeard() {
    this.lastComment = Date.now()
    for (const wake of [...this.waiters.keys()]) wake('comment')
    return 0
  }

  /**
   * A credential ended (its person removed, a logout, a key revoked, an app disconnected): the
   * sockets and waits held under any of `tags` end now, and hear nothing more.
   */
  async endAccess(tags: string[]): Promise<number> {
    let ended = 0
    for (const tag of tags) {
      for (const socket of this.ctx.getWebSockets(tag)) {
        end(socket, 'signed_out')
        ended++
      }
    }
    for (const [wake, held] of [...this.waiters]) {
      if (held.some((t) => tags.includes(t))) {
        wake('ended')
        ended++
      }
    }
    return ended
  }

  /**
   * Counts reads an isolate gathered (docs/readership.md): added up in the object's storage, which
   * outlives its eviction, and written to D1 by the alarm, at most once a minute.
   */
  async countViews(canvasId: string, views: ViewEvent[]): Promise<void> {
    tallyViews(this.ctx.storage.sql, views)
    const storage = this.ctx.storage
    const due = await storage.get<number>(FLUSH_KEY)
    // A write already due: its alarm is made sure of (an object may hold the mark without one).
    if (due !== undefined) return this.alarmBy(due)
    // Its canvas's id, which the write names (an object does not know its own name).
    const written = (await storage.get<number>(WRITTEN_KEY)) ?? 0
    const at = Math.max(Date.now(), written + VIEW_WRITE_INTERVAL_MS)
    await storage.put({ [CANVAS_KEY]: canvasId, [FLUSH_KEY]: at })
    await this.alarmBy(at)
  }

  /**
   * Writes the reads counted to D1, and forgets the readers of days gone by. A failed write puts
   * its counts back, for the next alarm, a minute later.
   */
  private async writeViews(now: number) {
    const storage = this.ctx.storage
    const due = await storage.get<number>(FLUSH_KEY)
    if (due === undefined || due > now) return
    const sql = storage.sql
    const tally = takeTally(sql)
    const canvasId = await storage.get<string>(CANVAS_KEY)
    try {
      if (tally && canvasId) {
        const results = await this.env.DB.batch(tallyStatements(this.env.DB, canvasId, tally, now))
        const written = results.reduce((n, r) => n + (r.meta.rows_written ?? 0), 0)
        logInfo({ event: 'views_written', canvas_id: canvasId, d1_rows_written: written })
      }
    } catch (err) {
      if (tally) restoreTally(sql, tally)
      await storage.put(FLUSH_KEY, now + VIEW_WRITE_INTERVAL_MS)
      throw err
    }
    // Reads counted while the write was under way wait for the next one. The marks and the
    // alarm change together (no await between them: one atomic write of the object's storage).
    const next = hasTally(sql) ? now + VIEW_WRITE_INTERVAL_MS : null
    await Promise.all([
      storage.put(WRITTEN_KEY, now),
      next === null ? storage.delete(FLUSH_KEY) : storage.put(FLUSH_KEY, next),
      this.arm(now, next),
    ])
  }

  /** Closes the sockets whose access has expired, writes the reads due, and sets the next alarm. */
  async alarm() {
    const now = Date.now()
    for (const socket of this.ctx.getWebSockets()) {
      const expiry = expiryOf(socket)
      if (expiry !== null && expiry <= now) end(socket, 'expired')
    }
    // The readers of the days gone by, whether or not a write is due.
    forgetReaders(this.ctx.storage.sql, dayOf(now))
    try {
      await this.writeViews(now)
    } finally {
      await this.rearm(now)
    }
  }

  /** Pages send nothing but pings, which the runtime answers; anything else is ignored. */
  async webSocketMessage() {}

  async webSocketClose(socket: WebSocket, code: number, reason: string) {
    try {
      socket.close(code, reason)
    } catch {
      // Closed already.
    }
  }

  /** The canvas was made permanent: its sockets expire with their links only, if at all. */
  private async keep(): Promise<number> {
    const sockets = this.ctx.getWebSockets()
    for (const socket of sockets) {
      const expiries = attachmentOf(socket)
      if (expiries?.canvas != null) socket.serializeAttachment({ ...expiries, canvas: null })
    }
    await this.rearm(Date.now())
    return sockets.length
  }

  /**
   * One alarm, at the earliest expiry among the open sockets after `now`, or the reads' write if
   * sooner; none if there is neither.
   */
  private async rearm(now: number) {
    await this.arm(now, (await this.ctx.storage.get<number>(FLUSH_KEY)) ?? null)
  }

  /** Sets the alarm for `flush` (the reads' next write) or the sockets' next expiry. */
  private arm(now: number, flush: number | null): Promise<void> {
    let expires: number | null = null
    for (const socket of this.ctx.getWebSockets()) {
      const expiry = expiryOf(socket)
      if (expiry !== null && expiry > now && (expires === null || expiry < expires))
        expires = expiry
    }
    // A day's readers are forgotten when it is over, though nobody reads the canvas again: by the
    // alarm of a socket's expiry when there is one (every alarm forgets them), else by their own.
    const wake = expires ?? readersKeptUntil(this.ctx.storage.sql)
    const next = flush === null ? wake : wake === null ? flush : Math.min(flush, wake)
    if (next === null) return this.ctx.storage.deleteAlarm()
    return this.ctx.storage.setAlarm(Math.min(next, now + ALARM_HORIZON_MS))
  }

  /** Moves the alarm earlier, if this expiry comes before it. */
  private async alarmBy(expiry: number) {
    const at = Math.min(expiry, Date.now() + ALARM_HORIZON_MS)
    const current = await this.ctx.storage.getAlarm()
    if (current === null || at < current) await this.ctx.storage.setAlarm(at)
  }
}

/** Tells the socket why its access ended, and closes it with that reason's code. */
function end(socket: WebSocket, reason: GoneReason) {
  sendTo(socket, JSON.stringify({ type: 'gone', reason } satisfies LiveEvent))
  try {
    socket.close(LIVE_CLOSE_CODES[reason], reason)
  } catch {
    // Closed already.
  }
}

/** A version was approved: a socket that follows approval moves to it, and hears comments up to it. */
function approve(socket: WebSocket, version: number) {
  const expiries = attachmentOf(socket)
  if (!expiries?.approved || (expiries.upTo ?? 0) >= version) return
  socket.serializeAttachment({ ...expiries, upTo: version })
  sendTo(socket, JSON.stringify({ type: 'version', version } satisfies LiveEvent))
}

/** Whether a socket pinned to a version may hear this: nothing newer than what it shows. */
function hears(socket: WebSocket, event: LiveEvent): boolean {
  const upTo = attachmentOf(socket)?.upTo ?? null
  if (upTo === null) return true
  if (event.type === 'version') return false
  return event.type !== 'comment' || Number(event.comment.version) <= upTo
}

function sendTo(socket: WebSocket, message: string) {
  try {
    socket.send(message)
  } catch {
    // A socket closing as we speak has nothing left to hear.
  }
}

/** A socket's attachment; null for a socket accepted before sockets carried one. */
function attachmentOf(socket: WebSocket): Expiries | null {
  return (socket.deserializeAttachment() as Expiries | null) ?? null
}

/** When the socket's access ends: the earlier of the canvas's expiry and the link's. */
function expiryOf(socket: WebSocket): number | null {
  const expiries = attachmentOf(socket)
  const times = [expiries?.canvas, expiries?.link].filter((t): t is number => typeof t === 'number')
  return times.length ? Math.min(...times) : null
}

/** Null when the header is absent; undefined when it is not a whole number of milliseconds. */
function parseExpiry(header: string | null): number | null | undefined {
  if (header === null) return null
  const value = Number(header)
  return /^\d{1,16}$/.test(header) && Number.isSafeInteger(value) ? value : undefined
}

function parseTags(header: string | null): string[] {
  try {
    const tags = JSON.parse(header ?? '[]')
    return Array.isArray(tags) ? tags.filter((t) => typeof t === 'string').slice(0, 10) : []
  } catch {
    return []
  }
}
