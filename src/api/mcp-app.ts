// The MCP Apps view of a canvas: a `ui://` resource, HTML that a chat app that supports the MCP
// Apps extension shows in a sandboxed frame beside the answer of `publish`, `get_canvas`,
// `update_canvas` or `edit_canvas` (each names it in its `_meta.ui.resourceUri`). The host sends
// it the tool's result by postMessage (`ui/notifications/tool-result`); from its
// `structuredContent` the view shows the canvas's title and facts, and a button that asks the host
// to open the canvas's page (`ui/open-link`) in the person's browser.
//
// It does not show the content itself, deliberately. The page and its content frames answer only
// Canvas itself as their parent (`frame-ancestors`), which keeps them from being framed by others,
// and the host's sandbox has an origin of its own, per host or per conversation, that the server
// cannot name in advance. A private canvas's page also needs the person's session, which a frame
// inside another site does not carry; a signed frame URL made for the chat would be a bearer link
// to private content left in the conversation. So the view holds no user content but the
// canvas's title and facts, set as text (never parsed as HTML), and needs no network, no frames and
// no resource from anywhere: the host's strictest default policy suits it, and nothing in it runs
// with Canvas's origin.

export const APP_URI = 'ui://canvas/view.html'
export const APP_MIME = 'text/html;profile=mcp-app'

/** The view as `resources/list` names it. */
export const APP_RESOURCE = {
  uri: APP_URI,
  name: 'canvas-view',
  title: 'Canvas',
  description: 'Shows a canvas a tool answered: its title, type, version and a link to its page.',
  mimeType: APP_MIME,
}

/** The view's own `_meta.ui`: a frame with a border, and nothing asked of the host's policy. */
export const APP_META = { ui: { prefersBorder: true } }

export const APP_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Canvas</title>
<style>
:root { color-scheme: light dark; }
body {
  margin: 0; padding: 16px;
  font: 14px/1.5 var(--font-sans, system-ui, sans-serif);
  color: var(--color-text-primary, CanvasText);
  background: var(--color-background-primary, Canvas);
}
p { margin: 0; }
.kind { color: var(--color-text-secondary, GrayText); font-size: 13px; }
h1 { margin: 2px 0 8px; font-size: 18px; line-height: 1.3; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 12px; }
dt { color: var(--color-text-secondary, GrayText); }
dd { margin: 0; overflow-wrap: anywhere; }
a.open {
  display: inline-block; padding: 6px 14px; border-radius: var(--border-radius-md, 6px);
  background: var(--color-background-inverse, #1f5fbf); color: var(--color-text-inverse, #fff);
  text-decoration: none; font-weight: 600;
}
a.open:focus-visible { outline: 2px solid var(--color-ring-primary, Highlight); outline-offset: 2px; }
.note { margin-top: 8px; color: var(--color-text-secondary, GrayText); overflow-wrap: anywhere; }
[hidden] { display: none !important; }
</style>
</head>
<body>
<main>
<p id="status" class="kind" role="status">Waiting for the canvas…</p>
<section id="card" hidden>
<p id="kind" class="kind"></p>
<h1 id="title"></h1>
<dl id="facts"></dl>
<a id="open" class="open" href="#" target="_blank" rel="noopener noreferrer">Open the canvas</a>
<p id="note" class="note" hidden></p>
</section>
</main>
<script>
(() => {
  const PROTOCOL = '2026-01-26'
  const host = window.parent
  const pending = new Map()
  let nextId = 1
  let viewUrl = null
  const $ = (id) => document.getElementById(id)

  const send = (message) => host.postMessage({ jsonrpc: '2.0', ...message }, '*')
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      send({ id, method, params })
    })

  window.addEventListener('message', (event) => {
    if (event.source !== host) return
    const message = event.data
    if (!message || message.jsonrpc !== '2.0') return
    if (message.method === undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id)
      pending.delete(message.id)
      if (message.error) reject(new Error(String(message.error.message)))
      else resolve(message.result)
      return
    }
    const params = message.params || {}
    if (message.method === 'ui/notifications/tool-result') show(params)
    else if (message.method === 'ui/notifications/host-context-changed') themed(params)
    else if (message.id !== undefined) {
      // ping, ui/resource-teardown: nothing to do but answer.
      send({ id: message.id, result: {} })
    }
  })

  function themed(context) {
    if (context.theme === 'light' || context.theme === 'dark') {
      document.documentElement.style.colorScheme = context.theme
    }
    const variables = context.styles && context.styles.variables
    if (variables && typeof variables === 'object') {
      for (const [name, value] of Object.entries(variables)) {
        if (name.startsWith('--') && typeof value === 'string') {
          document.documentElement.style.setProperty(name, value)
        }
      }
    }
  }

  const text = (value) => (typeof value === 'string' ? value : '')
  const count = (value) => (Number.isSafeInteger(value) && value >= 0 ? value : null)

  function bytes(size) {
    if (size < 1024) return size + ' bytes'
    const units = ['KB', 'MB', 'GB', 'TB']
    let value = size / 1024
    let unit = 0
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024
      unit++
    }
    return value.toFixed(value < 10 ? 1 : 0) + ' ' + units[unit]
  }

  function when(value) {
    const date = new Date(text(value))
    return isNaN(date.getTime()) ? null : date.toLocaleString()
  }

  /** Only a web page: never a script or data URL, whatever the host relays. */
  function webUrl(value) {
    try {
      const url = new URL(text(value))
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null
    } catch {
      return null
    }
  }

  function show(result) {
    const canvas = result.structuredContent
    if (result.isError || !canvas || typeof canvas !== 'object') {
      const first = Array.isArray(result.content) ? result.content[0] : null
      $('status').textContent = text(first && first.text) || 'The tool answered no canvas.'
      $('card').hidden = true
      return
    }
    const kind = [text(canvas.renderer && canvas.renderer.name) || text(canvas.ext).toUpperCase()]
    const version = count(canvas.version)
    if (version !== null) kind.push('version ' + version)
    $('kind').textContent = kind.filter(Boolean).join(' · ')
    $('title').textContent = text(canvas.title) || text(canvas.canvas_id)
    const facts = []
    facts.push(['Visibility', canvas.visibility === 'public' ? 'public: anyone with the link' : 'private'])
    const size = count(canvas.size)
    if (size !== null) facts.push(['Size', bytes(size)])
    if (Array.isArray(canvas.items)) facts.push(['Files', canvas.items.length + ', main ' + text(canvas.main)])
    const updated = when(canvas.updated_at)
    if (updated) facts.push(['Updated', updated])
    facts.push(['Expires', canvas.expires_at === null ? 'never' : when(canvas.expires_at) || '—'])
    $('facts').replaceChildren(
      ...facts.flatMap(([term, value]) => {
        const dt = document.createElement('dt')
        const dd = document.createElement('dd')
        dt.textContent = term
        dd.textContent = value
        return [dt, dd]
      }),
    )
    viewUrl = webUrl(canvas.view_url)
    $('open').hidden = viewUrl === null
    if (viewUrl) $('open').href = viewUrl
    $('note').hidden = true
    $('status').textContent = ''
    $('status').hidden = true
    $('card').hidden = false
  }

  $('open').addEventListener('click', (event) => {
    event.preventDefault()
    if (!viewUrl) return
    const url = viewUrl
    request('ui/open-link', { url }).catch(() => {
      $('note').textContent = 'Open it in your browser: ' + url
      $('note').hidden = false
    })
  })

  request('ui/initialize', {
    protocolVersion: PROTOCOL,
    appInfo: { name: 'canvas', version: '1.0.0' },
    appCapabilities: { availableDisplayModes: ['inline'] },
  }).then(
    (result) => {
      themed((result && result.hostContext) || {})
      send({ method: 'ui/notifications/initialized', params: {} })
      // The host sizes the frame to the view when it lets the view choose its height.
      new ResizeObserver(() => {
        const box = document.documentElement.getBoundingClientRect()
        send({
          method: 'ui/notifications/size-changed',
          params: { width: Math.ceil(box.width), height: Math.ceil(box.height) },
        })
      }).observe(document.documentElement)
    },
    () => {
      $('status').textContent = 'This chat app could not start the view.'
    },
  )
})()
</script>
</body>
</html>
`
