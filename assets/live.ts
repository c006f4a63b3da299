// A viewer that follows its canvas: a WebSocket to the canvas's Durable Object says when a new
// version lands (the frame then swaps to it, and a live region says so) or when access ends. A
// dropped socket reconnects with backoff, and the object tells a new socket the current version,
// so a version missed meanwhile is caught up. The owner's page (`data-parts`) also fetches its
// parts that name versions (the picker, the versions table and its comparison, the site's files,
// the share form's choice of version) and puts each in place, so the whole page tells one story.
// Comments made, changed or deleted are handed to the comments panel.

import { LIVE_CLOSE_CODES, type LiveEvent as ServerEvent } from '../src/lib/live-events'
import { COMMENT_EVENT, type CommentEvent } from './comments/events'

type LiveEvent = Exclude<ServerEvent, { type: 'comment' | 'comment_deleted' }> | CommentEvent
type Frame = { version: number; src: string; download: string }

// News of a version is read out at once and then clears, giving the content its room back; the
// page itself names the version from then on.
const NEWS_MS = 10_000

// The reason of each close code the canvas's object closes a socket with.
const CODES: Record<number, string> = Object.fromEntries(
  Object.entries(LIVE_CLOSE_CODES).map(([reason, code]) => [code, reason]),
)

export function followLive() {
  const root = document.querySelector<HTMLElement>('[data-live]')
  if (!root || !window.WebSocket || !window.fetch) return
  follow(root)
}

/** A page that follows its canvas: what it shows, and where it says what changed. */
type Page = ReturnType<typeof pageOf>

function pageOf(root: HTMLElement) {
  const url = root.getAttribute('data-live')!
  const shown = Number(root.getAttribute('data-version'))
  // A share link's page shows the link's expiry, which is never after its canvas's.
  const shared = /[?&]g=s\./.test(url)
  const status = root.querySelector<HTMLElement>('[data-live-status]')!
  let quiet: number | undefined
  const page = {
    url,
    shown,
    // The canvas's latest version as the page was rendered (the owner's page names it already).
    latest: Number(root.getAttribute('data-latest') ?? shown),
    follows: root.hasAttribute('data-follows'),
    // A share page of one version hears of comments only.
    pinned: root.hasAttribute('data-pinned'),
    // A link's page that waits for a first approval: it opens the link again when one comes.
    awaiting: root.hasAttribute('data-awaiting'),
    frame: root.querySelector('iframe')!,
    downloads: root.querySelectorAll<HTMLAnchorElement>('[data-live-download]'),
    chip: root.querySelector<HTMLElement>('[data-live-version]'),
    picker: root.querySelector<HTMLSelectElement>('select[name=v]'),
    parts: root.getAttribute('data-parts'),
    gone: {
      deleted: 'This canvas was deleted.',
      private: 'This canvas is no longer public.',
      revoked: 'This link was revoked.',
      expired: shared ? 'This link has expired.' : 'This canvas has expired.',
      signed_out: 'You were signed out, or are no longer a member of this workspace.',
    } as Record<string, string>,
    ended: false,
    /** Says what changed; news of a version goes after a while, an end of access stays. */
    say(text: string, passing = false) {
      clearTimeout(quiet)
      status.textContent = text
      if (passing) quiet = setTimeout(() => (status.textContent = ''), NEWS_MS)
    },
    end(reason: string) {
      page.ended = true
      page.say(page.gone[reason] || 'This canvas is no longer available.')
    },
  }
  return page
}

function follow(root: HTMLElement) {
  const page = pageOf(root)
  let delay = 1000
  const connect = () => {
    const socket = new WebSocket(page.url.replace(/^http/, 'ws'))
    let pinger: number | undefined
    socket.onopen = () => {
      delay = 1000
      root.setAttribute('data-live-state', 'open')
      pinger = setInterval(() => socket.send('ping'), 30000)
    }
    socket.onmessage = (e) => {
      const event = parsed(e.data)
      if (event) heard(page, event)
    }
    socket.onclose = (e) => {
      clearInterval(pinger)
      root.setAttribute('data-live-state', 'closed')
      if (CODES[e.code]) page.end(CODES[e.code])
      if (page.ended) return
      setTimeout(connect, delay)
      delay = Math.min(delay * 2, 60000)
    }
  }
  connect()
}

function parsed(data: unknown): LiveEvent | null {
  try {
    return JSON.parse(data as string) as LiveEvent
  } catch {
    return null
  }
}

function heard(page: Page, event: LiveEvent) {
  if (event.type === 'gone') page.end(event.reason)
  // Comments go to the panel, which checks what it is given (assets/comments/).
  if (event.type === 'comment' || event.type === 'comment_deleted') {
    document.dispatchEvent(new CustomEvent(COMMENT_EVENT, { detail: event }))
  }
  if (event.type !== 'version' || page.pinned) return
  if (page.awaiting) {
    // Opened again by a GET: a page reached by its password form posts nothing twice.
    location.replace(location.href)
    return
  }
  if (page.follows) {
    if (event.version > page.shown) swap(page)
    return
  }
  // An older version stays shown; what names versions learns of the new one.
  if (event.version <= page.latest) return
  page.latest = event.version
  page.say(`v${page.latest} is out: choose it above to see it.`, true)
  if (page.parts) refreshParts(page.parts)
}

/** The frame of the version the socket announced, put in place of the one shown. */
function swap(page: Page) {
  fetch(page.url.replace('?', '/frame?'), { headers: { Accept: 'application/json' } })
    .then((res) => (res.ok ? (res.json() as Promise<Frame>) : null))
    .then((next) => {
      if (!next || next.version <= page.shown) return
      page.shown = next.version
      page.frame.src = next.src
      for (const download of page.downloads) download.href = next.download
      if (page.chip) page.chip.textContent = `v${page.shown}`
      if (page.picker && !page.parts) {
        const option = document.createElement('option')
        option.value = String(page.shown)
        option.textContent = `v${page.shown}`
        page.picker.insertBefore(option, page.picker.firstChild)
        page.picker.value = String(page.shown)
      }
      page.say(`Updated to v${page.shown}.`, true)
      if (page.parts) refreshParts(page.parts)
    })
    .catch(() => {})
}

/**
 * The owner's page's parts that name versions, fetched again and put in place of their
 * namesakes. A list of choices keeps its element (and its listeners) and takes the new options;
 * the share form's keeps what was chosen in it.
 */
function refreshParts(url: string) {
  fetch(url, { headers: { Accept: 'text/html' } })
    .then((res) => (res.ok && !res.redirected ? res.text() : null))
    .then((html) => {
      if (!html) return
      const fresh = new DOMParser().parseFromString(html, 'text/html')
      for (const part of fresh.querySelectorAll<HTMLElement>('[data-live-part]')) {
        const name = part.getAttribute('data-live-part')!
        const old = document.querySelector<HTMLElement>(`[data-live-part="${CSS.escape(name)}"]`)
        if (!old) continue
        if (old instanceof HTMLSelectElement && part instanceof HTMLSelectElement) {
          const kept = name === 'picker' ? part.value : old.value
          old.replaceChildren(...Array.from(part.options, (o) => document.importNode(o, true)))
          old.value = kept
          if (old.value !== kept) old.selectedIndex = 0
        } else {
          old.replaceWith(document.importNode(part, true))
        }
      }
    })
    .catch(() => {})
}
