// A viewer that follows its canvas: a WebSocket to the canvas's Durable Object says when a new
// version lands (the frame then swaps to it, and a live region says so) or when access ends. A
// dropped socket reconnects with backoff, and the object tells a new socket the current version,
// so a version missed meanwhile is caught up.

type LiveEvent = { type: 'version'; version: number } | { type: 'gone'; reason: string }
type Frame = { version: number; src: string; download: string }

const CODES: Record<number, string> = {
  4001: 'deleted',
  4002: 'private',
  4003: 'revoked',
  4004: 'expired',
}

export function followLive() {
  const root = document.querySelector<HTMLElement>('[data-live]')
  if (!root || !window.WebSocket || !window.fetch) return
  follow(root)
}

function follow(root: HTMLElement) {
  const url = root.getAttribute('data-live')!
  let shown = Number(root.getAttribute('data-version'))
  const follows = root.hasAttribute('data-follows')
  const frame = root.querySelector('iframe')!
  const status = root.querySelector<HTMLElement>('[data-live-status]')!
  const download = root.querySelector<HTMLAnchorElement>('[data-live-download]')
  const chip = root.querySelector<HTMLElement>('[data-live-version]')
  const picker = root.querySelector<HTMLSelectElement>('select[name=v]')
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

  function say(text: string) {
    status.textContent = text
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
        if (download) download.href = next.download
        if (chip) chip.textContent = `v${shown}`
        if (picker) {
          const option = document.createElement('option')
          option.value = String(shown)
          option.textContent = `v${shown}`
          picker.insertBefore(option, picker.firstChild)
          picker.value = String(shown)
        }
        say(`Updated to v${shown}.`)
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
      if (event.type !== 'version' || event.version <= shown) return
      if (follows) swap()
      else say(`v${event.version} is out: choose it above to see it.`)
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
