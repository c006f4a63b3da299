// The comments panel of the owner's page and of a share page that allows comments: the list
// (open ones, resolved ones on demand) with Markdown bodies, replies and the owner's actions; the
// form, anchored to what is selected or pointed at in the content; and the highlights of the
// comments in the content frame, through the frame's bridge (assets/frame-bridge.ts). New
// comments and changes reach it live (assets/live.ts) without a reload.
import { markdown } from './markdown'
import type { CommentAnchor } from '../src/schema/requests'
import type { Comment, Reply } from '../src/schema/responses'
import type { TextQuote } from './quote'

type Author = Comment['author']
type Anchor = CommentAnchor | null

/** What live.ts hands over: the socket's comment events, as the Durable Object sent them. */
export type CommentEvent =
  { type: 'comment'; comment: Comment } | { type: 'comment_deleted'; comment_id: string }

export const COMMENT_EVENT = 'canvas:comment'

const NAME_KEY = 'canvas.comment-name'
const KINDS: Record<string, string> = { owner: 'owner', agent: 'agent', visitor: 'guest' }
const ID = /^[A-Za-z0-9_-]{1,64}$/

export function commentPanels() {
  const panel = document.querySelector<HTMLElement>('[data-comments]')
  if (!panel || !window.fetch) return
  run(panel)
}

function run(panel: HTMLElement) {
  const base = panel.getAttribute('data-comments')!
  const shown = Number(panel.getAttribute('data-shown'))
  const owner = panel.hasAttribute('data-owner')
  const csrf = panel.getAttribute('data-csrf') ?? ''
  const stage = panel.closest<HTMLElement>('.stage')!
  const frame = stage.querySelector('iframe')
  const list = panel.querySelector<HTMLElement>('[data-comments-list]')!
  const empty = panel.querySelector<HTMLElement>('[data-comments-empty]')!
  const resolvedBox = panel.querySelector<HTMLInputElement>('[data-comments-resolved]')!
  panel.querySelector('[data-comments-resolved-label]')!.removeAttribute('hidden')
  const toggles = document.querySelectorAll<HTMLElement>('[data-comments-toggle]')
  const comments = new Map<string, Comment>()
  /** Replies being written, by comment: their text, the key they are posted with, and whether
   * they are on their way. */
  const drafts = new Map<string, { text: string; key: string; sending: boolean }>()
  let showResolved = false
  /** Which comments the frame shows in place; null until it says. */
  let placed: Set<string> | null = null
  let anchor: Anchor = null
  let pointMode = false
  let active: string | null = null

  // The form, made here: without the script there is nothing it could send.
  const form = buildForm()
  panel.appendChild(form.root)

  /** A request of the panel's; a post carries the key that makes sending it twice harmless. */
  function request(path: string, init: RequestInit = {}, postKey?: string) {
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (init.body) headers['Content-Type'] = 'application/json'
    if (owner) headers['X-CSRF-Token'] = csrf
    if (postKey) headers['Idempotency-Key'] = postKey
    return fetch(base + path, { ...init, headers, credentials: 'same-origin' }).then(
      async (res) => {
        const body = (await res.json().catch(() => null)) as
          { error?: { message?: string } } | Record<string, unknown> | null
        if (!res.ok) {
          const message = (body as { error?: { message?: string } } | null)?.error?.message
          throw new Error(message || 'That did not work. Try again.')
        }
        return body
      },
    )
  }

  function load() {
    request(showResolved ? '?status=all' : '?status=open')
      .then((body) => {
        comments.clear()
        for (const c of (body as { comments: Comment[] }).comments) comments.set(c.comment_id, c)
        render()
      })
      .catch(() => {})
  }

  const visible = () =>
    [...comments.values()]
      .filter((c) => showResolved || c.status === 'open')
      .sort((a, b) => a.created_at.localeCompare(b.created_at))

  function render() {
    drawList()
    tellFrame()
  }

  function drawList() {
    const items = visible()
    const open = [...comments.values()].filter((c) => c.status === 'open').length
    for (const toggle of toggles) {
      const count = toggle.querySelector('[data-comments-count]')
      if (count) count.textContent = String(open)
    }
    list.replaceChildren(...items.map((c) => item(c)))
    empty.hidden = items.length > 0
    empty.textContent = showResolved ? 'No comments.' : 'No open comments.'
  }

  function item(c: Comment) {
    const li = el('li', 'comment')
    li.setAttribute('data-comment-id', c.comment_id)
    if (c.status === 'resolved') li.classList.add('resolved')
    if (c.comment_id === active) li.classList.add('active')
    li.appendChild(byline(c.author, c.created_at))
    const tags = el('p', 'tags')
    if (c.version !== shown) tags.appendChild(chip(`v${c.version}`, `Made on version ${c.version}`))
    if (c.status === 'resolved') tags.appendChild(chip('resolved'))
    if (c.anchor && 'point' in c.anchor) tags.appendChild(chip('point'))
    if (c.anchor && placed && !placed.has(c.comment_id)) {
      tags.appendChild(
        chip('not in this version', 'Its text is gone, or now occurs more than once'),
      )
    }
    if (tags.childNodes.length) li.appendChild(tags)
    if (c.anchor && 'quote' in c.anchor) {
      const quote = el('button', 'quote') as HTMLButtonElement
      quote.type = 'button'
      quote.textContent = c.anchor.quote.exact
      quote.title = 'Show in the content'
      quote.addEventListener('click', () => focus(c.comment_id))
      li.appendChild(quote)
    }
    const body = el('div', 'body')
    body.append(...markdown(c.body))
    li.appendChild(body)
    if (c.replies.length) {
      const replies = el('ol', 'replies')
      for (const r of c.replies) {
        const row = el('li', 'reply')
        row.appendChild(byline(r.author, r.created_at))
        const text = el('div', 'body')
        text.append(...markdown(r.body))
        row.appendChild(text)
        if (owner) {
          row.appendChild(
            action('Delete reply', 'small subtle', () => {
              if (!confirm('Delete this reply?')) return
              request(`/${c.comment_id}/replies/${r.reply_id}`, { method: 'DELETE' })
                .then(() => {
                  c.replies = c.replies.filter((x) => x.reply_id !== r.reply_id)
                  render()
                })
                .catch(failed)
            }),
          )
        }
        replies.appendChild(row)
      }
      li.appendChild(replies)
    }
    const actions = el('div', 'comment-actions')
    const replyForm = replyBox(c)
    actions.appendChild(
      action('Reply', 'small', () => {
        const draft = drafts.get(c.comment_id)
        if (draft?.sending) return
        if (draft) drafts.delete(c.comment_id)
        else drafts.set(c.comment_id, { text: '', key: newPostKey(), sending: false })
        replyForm.hidden = !drafts.has(c.comment_id)
        if (!replyForm.hidden) replyForm.querySelector('textarea')!.focus()
      }),
    )
    if (c.anchor) actions.appendChild(action('Show', 'small', () => focus(c.comment_id)))
    if (owner) {
      const resolve = c.status === 'open'
      actions.appendChild(
        action(resolve ? 'Resolve' : 'Reopen', 'small', () => {
          request(`/${c.comment_id}/${resolve ? 'resolve' : 'reopen'}`, { method: 'POST' })
            .then((next) => upsert(next as Comment))
            .catch(failed)
        }),
      )
      actions.appendChild(
        action('Delete', 'small danger', () => {
          if (!confirm('Delete this comment and its replies?')) return
          request(`/${c.comment_id}`, { method: 'DELETE' })
            .then(() => remove(c.comment_id))
            .catch(failed)
        }),
      )
    }
    li.appendChild(actions)
    li.appendChild(replyForm)
    return li
  }

  // The box of a reply being written: drawn from its draft, which outlives the list being drawn
  // again (a live event may redraw it while the reply is on its way), and goes once it is sent.
  function replyBox(c: Comment) {
    const id = c.comment_id
    const draft = drafts.get(id)
    const box = el('form', 'reply-form') as HTMLFormElement
    box.hidden = draft === undefined
    const area = el('textarea') as HTMLTextAreaElement
    area.setAttribute('data-reply-to', id)
    area.rows = 2
    area.maxLength = 10000
    area.required = true
    area.setAttribute('aria-label', `Reply to ${c.author.name}`)
    area.value = draft?.text ?? ''
    area.addEventListener('input', () => {
      const current = drafts.get(id)
      // Another text is another post: it gets a key of its own.
      if (current && !current.sending)
        drafts.set(id, { ...current, text: area.value, key: newPostKey() })
    })
    const send = el('button', 'primary small') as HTMLButtonElement
    send.type = 'submit'
    send.textContent = 'Reply'
    send.disabled = draft?.sending ?? false
    box.append(area, send)
    box.addEventListener('submit', (event) => {
      event.preventDefault()
      const current = drafts.get(id)
      const name = visitorName()
      if (name === null || !current || current.sending) return
      current.sending = true
      send.disabled = true
      const payload = owner ? { body: current.text } : { body: current.text, name }
      request(`/${id}/replies`, { method: 'POST', body: JSON.stringify(payload) }, current.key)
        .then((reply) => {
          drafts.delete(id)
          const thread = comments.get(id)
          if (thread && !thread.replies.some((r) => r.reply_id === (reply as Reply).reply_id)) {
            thread.replies.push(reply as Reply)
          }
          render()
        })
        .catch((err) => {
          current.sending = false
          render()
          failed(err)
        })
    })
    return box
  }

  function upsert(c: Comment) {
    comments.set(c.comment_id, c)
    render()
  }
  function remove(id: string) {
    comments.delete(id)
    render()
  }

  function failed(err: unknown) {
    form.say(err instanceof Error ? err.message : 'That did not work. Try again.', true)
  }

  /** A visitor's name, from the form: asked once, then remembered in this browser. */
  function visitorName(): string | null {
    if (owner) return ''
    const name = form.name!.value.trim()
    if (name) return name
    form.say('Enter your name first: it is shown with what you write.', true)
    openPanel()
    form.name!.focus()
    return null
  }

  // The form to comment: on what is selected or pointed at in the content, else the canvas.
  function buildForm() {
    const root = el('form', 'comment-form') as HTMLFormElement
    root.noValidate = false
    const where = el('div', 'anchor-note')
    root.appendChild(where)
    const whereText = el('p', 'hint')
    const clear = el('button', 'small subtle') as HTMLButtonElement
    clear.type = 'button'
    clear.textContent = 'On the whole canvas instead'
    clear.addEventListener('click', () => setAnchor(null))
    where.append(whereText, clear)
    let name: HTMLInputElement | null = null
    if (!owner) {
      const label = el('label') as HTMLLabelElement
      label.textContent = 'Your name'
      name = el('input') as HTMLInputElement
      name.autocomplete = 'name'
      name.maxLength = 60
      name.id = 'comment-name'
      label.htmlFor = 'comment-name'
      try {
        name.value = localStorage.getItem(NAME_KEY) ?? ''
      } catch {
        // Storage refused (a private window): the name is asked each time.
      }
      name.addEventListener('change', () => {
        try {
          localStorage.setItem(NAME_KEY, name!.value.trim())
        } catch {
          // As above.
        }
      })
      root.append(label, name)
    }
    const label = el('label') as HTMLLabelElement
    label.textContent = 'Comment'
    label.htmlFor = 'comment-body'
    const body = el('textarea') as HTMLTextAreaElement
    body.id = 'comment-body'
    body.rows = 3
    body.maxLength = 10000
    body.required = true
    body.placeholder = 'Markdown works: **bold**, *italic*, `code`, [links](https://…)'
    const row = el('div', 'form-row')
    const point = el('button', 'point-toggle') as HTMLButtonElement
    point.type = 'button'
    point.textContent = 'Point'
    point.title = 'Click a point of the content to comment on it'
    point.setAttribute('aria-pressed', 'false')
    point.addEventListener('click', () => setPointMode(!pointMode))
    const send = el('button', 'primary') as HTMLButtonElement
    send.type = 'submit'
    send.textContent = 'Comment'
    row.append(point, send)
    const status = el('p', 'hint form-status')
    status.setAttribute('role', 'status')
    root.append(label, body, row, status)
    // The key this comment is posted with: sent again unchanged, it makes no second comment.
    let postKey = newPostKey()
    body.addEventListener('input', () => (postKey = newPostKey()))
    root.addEventListener('submit', (event) => {
      event.preventDefault()
      const who = visitorName()
      if (who === null) return
      if (!body.value.trim()) {
        say('Write something first.', true)
        body.focus()
        return
      }
      send.disabled = true
      const payload: Record<string, unknown> = { body: body.value }
      if (anchor) payload.anchor = anchor
      if (!owner) payload.name = who
      else payload.version = shown
      request('', { method: 'POST', body: JSON.stringify(payload) }, postKey)
        .then((made) => {
          body.value = ''
          postKey = newPostKey()
          setAnchor(null)
          say('Posted.')
          upsert(made as Comment)
        })
        .catch(failed)
        .finally(() => (send.disabled = false))
    })
    function say(text: string, error = false) {
      status.textContent = text
      status.classList.toggle('error-text', error)
    }
    function describe() {
      if (anchor && 'quote' in anchor) {
        const text = anchor.quote.exact
        whereText.textContent = `On “${text.length > 80 ? text.slice(0, 80) + '…' : text}”`
      } else if (anchor && 'point' in anchor) {
        whereText.textContent = 'On the point you clicked.'
      } else {
        whereText.textContent = frame
          ? 'On the whole canvas. Select text in it, or choose Point, to comment on a part.'
          : 'On the whole canvas.'
      }
      clear.hidden = anchor === null
    }
    describe()
    return { root, body, name, point, say, describe }
  }

  function setAnchor(next: Anchor) {
    anchor = next
    form.describe()
  }

  function setPointMode(on: boolean) {
    pointMode = on
    form.point.setAttribute('aria-pressed', String(on))
    form.point.textContent = on ? 'Click the content…' : 'Point'
    post({ type: 'mode', point: on })
  }

  function focus(id: string) {
    active = id
    for (const li of list.querySelectorAll('.comment')) {
      li.classList.toggle('active', li.getAttribute('data-comment-id') === id)
    }
    post({ type: 'focus', id })
  }

  // The frame: told the comments to show, it says what is selected, pointed at, or clicked.
  function post(message: object) {
    // A sandboxed frame's origin is opaque: it cannot be named as a target. What is sent is what
    // its content's readers see anyway (quotes of it, points), never a comment's text.
    frame?.contentWindow?.postMessage({ source: 'canvas-page', ...message }, '*')
  }
  function tellFrame() {
    const items = visible()
      .filter((c) => c.anchor)
      .map((c) => ({ id: c.comment_id, ...c.anchor }))
    post({ type: 'comments', items })
  }
  window.addEventListener('message', (event) => {
    if (!frame || event.source !== frame.contentWindow) return
    const message = bridgeMessage(event.data)
    if (!message) return
    switch (message.type) {
      case 'ready':
        placed = null
        tellFrame()
        if (pointMode) post({ type: 'mode', point: true })
        break
      case 'placed':
        placed = new Set(message.ids)
        drawList()
        break
      case 'select':
        if (message.quote) {
          setAnchor({ quote: message.quote })
        } else if (anchor && 'quote' in anchor && !form.body.value) {
          setAnchor(null)
        }
        break
      case 'point':
        setAnchor({ point: { x: message.x, y: message.y } })
        setPointMode(false)
        openPanel()
        form.body.focus()
        break
      case 'open':
        if (comments.has(message.id)) {
          openPanel()
          focus(message.id)
          list.querySelector(`[data-comment-id="${message.id}"]`)?.scrollIntoView({
            block: 'nearest',
          })
        }
        break
    }
  })

  // Opened and closed by the bar's button: a drawer on a phone, a column to hide on a screen.
  const phone = window.matchMedia('(max-width: 720px)')
  function openPanel() {
    if (phone.matches) panel.classList.add('open')
    else stage.classList.remove('comments-hidden')
    sync()
  }
  function closePanel() {
    panel.classList.remove('open')
    if (!phone.matches) stage.classList.add('comments-hidden')
    sync()
  }
  const isOpen = () =>
    phone.matches ? panel.classList.contains('open') : !stage.classList.contains('comments-hidden')
  function sync() {
    for (const toggle of toggles) toggle.setAttribute('aria-expanded', String(isOpen()))
  }
  for (const toggle of toggles) {
    toggle.setAttribute('role', 'button')
    toggle.addEventListener('click', (event) => {
      event.preventDefault()
      if (isOpen()) closePanel()
      else {
        openPanel()
        panel.querySelector<HTMLElement>('h2')?.focus()
      }
    })
  }
  panel.querySelector('h2')?.setAttribute('tabindex', '-1')
  panel.querySelector('[data-comments-close]')?.addEventListener('click', (event) => {
    event.preventDefault()
    closePanel()
    toggles[0]?.focus()
  })
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && phone.matches && panel.classList.contains('open')) {
      closePanel()
      toggles[0]?.focus()
    }
  })
  // Opened by its address (#comments) before the script ran: the drawer stays open.
  if (location.hash === '#comments') {
    history.replaceState(null, '', location.pathname + location.search)
    openPanel()
  }
  sync()

  resolvedBox.addEventListener('change', () => {
    showResolved = resolvedBox.checked
    load()
  })
  document.addEventListener(COMMENT_EVENT, (event) => {
    const live = (event as CustomEvent<CommentEvent>).detail
    if (live.type === 'comment' && live.comment && ID.test(live.comment.comment_id)) {
      upsert(live.comment)
    } else if (live.type === 'comment_deleted' && typeof live.comment_id === 'string') {
      remove(live.comment_id)
    }
  })
  load()
}

type BridgeMessage =
  | { type: 'ready' }
  | { type: 'placed'; ids: string[] }
  | { type: 'select'; quote: TextQuote | null }
  | { type: 'point'; x: number; y: number }
  | { type: 'open'; id: string }

const text = (v: unknown, max: number) => typeof v === 'string' && v.length <= max
const fraction = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1

/**
 * What the frame said, if it is one of the bridge's messages with fields of the right types and
 * sizes: an HTML canvas's own scripts can post anything from the same window.
 */
export function bridgeMessage(data: unknown): BridgeMessage | null {
  if (!data || typeof data !== 'object') return null
  const m = data as Record<string, unknown>
  if (m.source !== 'canvas-bridge') return null
  switch (m.type) {
    case 'ready':
      return { type: 'ready' }
    case 'placed':
      if (!Array.isArray(m.ids) || m.ids.length > 1000) return null
      if (!m.ids.every((id) => typeof id === 'string' && ID.test(id))) return null
      return { type: 'placed', ids: m.ids as string[] }
    case 'select': {
      if (m.quote === null) return { type: 'select', quote: null }
      const q = m.quote as Record<string, unknown> | undefined
      if (!q || typeof q !== 'object') return null
      if (!text(q.exact, 2000) || (q.exact as string).trim() === '') return null
      if (q.prefix !== undefined && !text(q.prefix, 200)) return null
      if (q.suffix !== undefined && !text(q.suffix, 200)) return null
      const quote: TextQuote = { exact: q.exact as string }
      if (q.prefix) quote.prefix = q.prefix as string
      if (q.suffix) quote.suffix = q.suffix as string
      return { type: 'select', quote }
    }
    case 'point':
      return fraction(m.x) && fraction(m.y)
        ? { type: 'point', x: m.x as number, y: m.y as number }
        : null
    case 'open':
      return typeof m.id === 'string' && ID.test(m.id) ? { type: 'open', id: m.id } : null
  }
  return null
}

function byline(author: Author, at: string) {
  const p = el('p', 'byline')
  const who = el('strong', 'who')
  // Isolated from the text beside it, whatever direction its own characters take.
  const name = el('bdi')
  name.dir = 'auto'
  name.textContent = author.name
  who.appendChild(name)
  const time = el('time') as HTMLTimeElement
  time.dateTime = at
  time.title = new Date(at).toLocaleString()
  time.textContent = ago(at)
  p.append(who, chip(KINDS[author.kind] ?? author.kind), time)
  return p
}

function chip(label: string, title?: string) {
  const span = el('span', 'chip')
  span.textContent = label
  if (title) span.title = title
  return span
}

function action(label: string, cls: string, onClick: () => void) {
  const button = el('button', cls) as HTMLButtonElement
  button.type = 'button'
  button.textContent = label
  button.addEventListener('click', onClick)
  return button
}

/** A fresh Idempotency-Key for a post: 128 random bits. */
function newPostKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

function el(tag: string, cls?: string) {
  const node = document.createElement(tag)
  if (cls) node.className = cls
  return node
}

/** "just now", "5 min ago", "3 h ago", "12 days ago", then the date. */
function ago(iso: string) {
  const minutes = Math.round((Date.now() - Date.parse(iso)) / 60_000)
  if (!(minutes >= 1)) return 'just now'
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 48) return `${hours} h ago`
  const days = Math.round(hours / 24)
  return days < 60 ? `${days} days ago` : iso.slice(0, 10)
}
