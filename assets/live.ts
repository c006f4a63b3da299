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

function follow(root: HTMLElement) {
  const url = root.getAttribute('data-live')!
  let shown = Number(root.getAttribute('data-version'))
  // The canvas's latest version as the page was rendered (the owner's page names it already).
  let latest = Number(root.getAttribute('data-latest') ?? shown)
  const follows = root.hasAttribute('data-follows')
  // A share page of one version hears of comments only.
  const pinned = root.hasAttribute('data-pinned')
  const frame = root.querySelector('iframe')!
  const status = root.querySelector<HTMLElement>('[data-live-status]')!
  const downloads = root.querySelectorAll<HTMLAnchorElement>('[data-live-download]')
  const chip = root.querySelector<HTMLElement>('[data-live-version]')
  const picker = root.querySelector<HTMLSelectElement>('select[name=v]')
  const parts = root.getAttribute('data-parts')
  // A share link's page shows the link's expiry, which is never after its canvas's.
  const shared = /[?&]g=s\./.test(url)
  const GONE: Record<string, string> = {
    deleted: 'This canvas was deleted.',
    private: 'This canvas is no longer public.',
    revoked: 'This link was revoked.',
    expired: shared ? 'This link has expired.' : 'This canvas has expired.',
  }
  let delay = 1000
  let ended = false

  let quiet: number | undefined
  /** Says what changed; news of a version goes after a while, an end of access stays. */
  function say(text: string, passing = false) {
    clearTimeout(quiet)
    status.textContent = text
    if (passing) quiet = setTimeout(() => (status.textContent = ''), NEWS_MS)
  }
  function end(reason: string) {
    ended = true
    say(GONE[reason] || 'This canvas is no longer available.')
  }
  function swap() {
    fetch(url.replace('?', '/frame?'), { headers: { Accept: 'application/json' } })
      .then((res) => (res.ok ? (res.json() as Promise<Frame>) : null))
      .then((next) => {
        if (!next || next.version <= shown) return
        shown = next.version
        frame.src = next.src
        for (const download of downloads) download.href = next.download
        if (chip) chip.textContent = `v${shown}`
        if (picker && !parts) {
          const option = document.createElement('option')
          option.value = String(shown)
          option.textContent = `v${shown}`
          picker.insertBefore(option, picker.firstChild)
          picker.value = String(shown)
        }
        say(`Updated to v${shown}.`, true)
        if (parts) refreshParts(parts)
      })
      .catch(() => {})
  }
  function connect() {
    const socket = new WebSocket(url.replace(/^http/, 'ws'))
    let pinger: number | undefined
    socket.onopen = () => {
      delay = 1000
      root.setAttribute('data-live-state', 'open')
      pinger = setInterval(() => socket.send('ping'), 30000)
    }
    socket.onmessage = (e) => {
      let event: LiveEvent
      try {
        event = JSON.parse(e.data as string) as LiveEvent
      } catch {
        return
      }
      if (event.type === 'gone') end(event.reason)
      // Comments go to the panel, which checks what it is given (assets/comments.ts).
      if (event.type === 'comment' || event.type === 'comment_deleted') {
        document.dispatchEvent(new CustomEvent(COMMENT_EVENT, { detail: event }))
      }
      if (event.type !== 'version' || pinned) return
      if (follows) {
        if (event.version > shown) swap()
        return
      }
      // An older version stays shown; what names versions learns of the new one.
      if (event.version <= latest) return
      latest = event.version
      say(`v${latest} is out: choose it above to see it.`, true)
      if (parts) refreshParts(parts)
    }
    socket.onclose = (e) => {
      clearInterval(pinger)
      root.setAttribute('data-live-state', 'closed')
      if (CODES[e.code]) end(CODES[e.code])
      if (ended) return
      setTimeout(connect, delay)
      delay = Math.min(delay * 2, 60000)
    }
  }
  connect()
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
