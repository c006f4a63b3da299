// The list of comments: each thread with its byline, tags, quote, body, replies and actions, and
// the box of a reply being written, drawn from its draft in the panel's state.
import type { Comment, Reply } from '../../src/schema/responses'
import { markdown } from '../markdown'
import { action, ago, chip, el, newPostKey } from './dom'
import type { Panel } from './panel'
import { openCount, visible } from './state'

const KINDS: Record<string, string> = { member: 'member', agent: 'agent', visitor: 'visitor' }

export function drawList(p: Panel) {
  const items = visible(p.state)
  for (const toggle of p.toggles) {
    const count = toggle.querySelector('[data-comments-count]')
    if (count) count.textContent = String(openCount(p.state))
  }
  p.list.replaceChildren(...items.map((c) => thread(p, c)))
  p.empty.hidden = items.length > 0
  p.empty.textContent = p.state.showResolved ? 'No comments.' : 'No open comments.'
}

function thread(p: Panel, c: Comment) {
  const li = el('li', 'comment')
  li.setAttribute('data-comment-id', c.comment_id)
  if (c.status === 'resolved') li.classList.add('resolved')
  if (c.comment_id === p.state.active) li.classList.add('active')
  li.appendChild(byline(c.author, c.created_at))
  const tags = tagsOf(p, c)
  if (tags.childNodes.length) li.appendChild(tags)
  if (c.status === 'resolved' && !p.state.unfolded.has(c.comment_id)) return folded(p, c, li)
  if (c.anchor && 'quote' in c.anchor) {
    const quote = el('button', 'quote')
    quote.type = 'button'
    quote.textContent = c.anchor.quote.exact
    quote.title = 'Show in the content'
    quote.addEventListener('click', () => p.focus(c.comment_id))
    li.appendChild(quote)
  }
  li.appendChild(bodyOf(c.body))
  if (c.replies.length) li.appendChild(replies(p, c))
  const box = replyBox(p, c)
  li.append(actions(p, c, box), box)
  return li
}

/** A resolved thread folded: the start of its question, and one click to the whole with its answer. */
function folded(p: Panel, c: Comment, li: HTMLLIElement) {
  li.classList.add('folded')
  const body = bodyOf(c.body)
  body.classList.add('clamped')
  const n = c.replies.length
  const label = n === 0 ? 'Show' : n === 1 ? 'Show the answer' : `Show the ${n} replies`
  li.append(
    body,
    action(label, 'small', () => unfold(p, c.comment_id, true)),
  )
  return li
}

function unfold(p: Panel, id: string, open: boolean) {
  if (open) p.state.unfolded.add(id)
  else p.state.unfolded.delete(id)
  p.drawList()
  // The thread unfolded takes the focus, to be read from its start; folded, its button again.
  const li = p.list.querySelector<HTMLElement>(`[data-comment-id="${id}"]`)
  if (!li) return
  li.tabIndex = -1
  ;(open ? li : li.querySelector<HTMLElement>('button'))?.focus()
}

function tagsOf(p: Panel, c: Comment) {
  const tags = el('p', 'tags')
  if (c.version !== p.shown) tags.appendChild(chip(`v${c.version}`, `Made on version ${c.version}`))
  if (c.status === 'resolved') tags.appendChild(chip('resolved'))
  if (c.anchor && 'point' in c.anchor) tags.appendChild(chip('point'))
  if (c.anchor && p.state.placed && !p.state.placed.has(c.comment_id)) {
    tags.appendChild(chip('not in this version', 'Its text is gone, or now occurs more than once'))
  }
  return tags
}

function bodyOf(text: string) {
  const body = el('div', 'body')
  body.append(...markdown(text))
  return body
}

function replies(p: Panel, c: Comment) {
  const list = el('ol', 'replies')
  for (const r of c.replies) {
    const row = el('li', 'reply')
    row.append(byline(r.author, r.created_at), bodyOf(r.body))
    if (p.moderate) {
      row.appendChild(
        action('Delete reply', 'small subtle', () => {
          if (!confirm('Delete this reply?')) return
          p.api(`/${c.comment_id}/replies/${r.reply_id}`, { method: 'DELETE' })
            .then(() => {
              c.replies = c.replies.filter((x) => x.reply_id !== r.reply_id)
              p.render()
            })
            .catch(p.failed)
        }),
      )
    }
    list.appendChild(row)
  }
  return list
}

function actions(p: Panel, c: Comment, box: HTMLFormElement) {
  const row = el('div', 'comment-actions')
  const drafts = p.state.drafts
  row.appendChild(
    action('Reply', 'small', () => {
      const draft = drafts.get(c.comment_id)
      if (draft?.sending) return
      if (draft) drafts.delete(c.comment_id)
      else drafts.set(c.comment_id, { text: '', key: newPostKey(), sending: false })
      box.hidden = !drafts.has(c.comment_id)
      if (!box.hidden) box.querySelector('textarea')!.focus()
    }),
  )
  if (c.anchor) row.appendChild(action('Show', 'small', () => p.focus(c.comment_id)))
  if (c.status === 'resolved') {
    row.appendChild(action('Fold', 'small', () => unfold(p, c.comment_id, false)))
  }
  if (!p.moderate) return row
  const resolve = c.status === 'open'
  row.appendChild(
    action(resolve ? 'Resolve' : 'Reopen', 'small', () => {
      p.api(`/${c.comment_id}/${resolve ? 'resolve' : 'reopen'}`, { method: 'POST' })
        .then((next) => upsert(p, next as Comment))
        .catch(p.failed)
    }),
  )
  row.appendChild(
    action('Delete', 'small danger', () => {
      if (!confirm('Delete this comment and its replies?')) return
      p.api(`/${c.comment_id}`, { method: 'DELETE' })
        .then(() => remove(p, c.comment_id))
        .catch(p.failed)
    }),
  )
  return row
}

// The box of a reply being written: drawn from its draft, which outlives the list being drawn
// again (a live event may redraw it while the reply is on its way), and goes once it is sent.
function replyBox(p: Panel, c: Comment) {
  const id = c.comment_id
  const drafts = p.state.drafts
  const draft = drafts.get(id)
  const box = el('form', 'reply-form')
  box.hidden = draft === undefined
  const area = el('textarea')
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
  const send = el('button', 'primary small')
  send.type = 'submit'
  send.textContent = 'Reply'
  send.disabled = draft?.sending ?? false
  box.append(area, send)
  box.addEventListener('submit', (event) => {
    event.preventDefault()
    sendReply(p, id, send)
  })
  return box
}

function sendReply(p: Panel, id: string, send: HTMLButtonElement) {
  const current = p.state.drafts.get(id)
  const name = p.visitorName()
  if (name === null || !current || current.sending) return
  current.sending = true
  send.disabled = true
  const payload = p.owner ? { body: current.text } : { body: current.text, name }
  p.api(`/${id}/replies`, { method: 'POST', body: JSON.stringify(payload) }, current.key)
    .then((reply) => {
      p.state.drafts.delete(id)
      const thread = p.state.comments.get(id)
      if (thread && !thread.replies.some((r) => r.reply_id === (reply as Reply).reply_id)) {
        thread.replies.push(reply as Reply)
      }
      p.render()
    })
    .catch((err) => {
      current.sending = false
      p.render()
      p.failed(err)
    })
}

export function upsert(p: Panel, c: Comment) {
  p.state.comments.set(c.comment_id, c)
  p.render()
}

export function remove(p: Panel, id: string) {
  p.state.comments.delete(id)
  p.render()
}

function byline(author: Comment['author'], at: string) {
  const line = el('p', 'byline')
  const who = el('strong', 'who')
  // Isolated from the text beside it, whatever direction its own characters take.
  const name = el('bdi')
  name.dir = 'auto'
  name.textContent = author.name
  who.appendChild(name)
  const time = el('time')
  time.dateTime = at
  time.title = new Date(at).toLocaleString()
  time.textContent = ago(at)
  line.append(who, chip(KINDS[author.kind] ?? author.kind), time)
  return line
}
