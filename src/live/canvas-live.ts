import { DurableObject } from 'cloudflare:workers'
import {
  LIVE_TAGS_HEADER,
  LIVE_VERSION_HEADER,
  type LiveAudience,
  type LiveEvent,
} from '../lib/live-events'

// One Durable Object per canvas holds the WebSockets of everyone looking at it, and tells them
// when a new version lands or their access ends. It uses the WebSocket Hibernation API: between
// events the object leaves memory and its sockets stay open, so idle viewers cost nothing; pings
// are answered by the runtime without waking it.

// Close codes of the private range (4000-4999): the page tells them apart.
const GONE_CODES = { deleted: 4001, private: 4002, revoked: 4003 } as const

export class CanvasLive extends DurableObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'))
  }

  /** A viewer's socket, whose access the Worker has checked; it is told the current version. */
  async fetch(request: Request): Promise<Response> {
    const tags = parseTags(request.headers.get(LIVE_TAGS_HEADER))
    const version = Number(request.headers.get(LIVE_VERSION_HEADER))
    const pair = new WebSocketPair()
    this.ctx.acceptWebSocket(pair[1], tags)
    // A page that reconnects after missing a version catches up at once.
    if (Number.isSafeInteger(version) && version > 0) {
      pair[1].send(JSON.stringify({ type: 'version', version } satisfies LiveEvent))
    }
    return new Response(null, { status: 101, webSocket: pair[0] })
  }

  /** Sends the event to its audience; an end of access also closes their sockets. */
  async notify(event: LiveEvent, audience: LiveAudience = 'all'): Promise<number> {
    const sockets = audience === 'all' ? this.ctx.getWebSockets() : this.ctx.getWebSockets(audience)
    const message = JSON.stringify(event)
    for (const socket of sockets) {
      try {
        socket.send(message)
        if (event.type === 'gone') socket.close(GONE_CODES[event.reason], event.reason)
      } catch {
        // A socket closing as we speak has nothing left to hear.
      }
    }
    return sockets.length
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
}

function parseTags(header: string | null): string[] {
  try {
    const tags = JSON.parse(header ?? '[]')
    return Array.isArray(tags) ? tags.filter((t) => typeof t === 'string').slice(0, 10) : []
  } catch {
    return []
  }
}
