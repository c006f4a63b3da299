// The form to comment: on what is selected or pointed at in the content, else the canvas; made
// by the script, since without it there is nothing it could send. A visitor gives a name, asked
// once and remembered in this browser.
import type { Comment } from '../../src/schema/responses'
import { el, newPostKey } from './dom'
import type { Form, Panel } from './panel'
import { upsert } from './thread'

const NAME_KEY = 'canvas.comment-name'

export function buildForm(p: Panel): Form {
  const root = el('form', 'comment-form')
  const note = anchorNote(p)
  root.appendChild(note.root)
  const name = p.owner ? null : nameField(root)
  const label = el('label')
  label.textContent = 'Comment'
  label.htmlFor = 'comment-body'
  const body = el('textarea')
  body.id = 'comment-body'
  body.rows = 3
  body.maxLength = 10000
  body.required = true
  body.placeholder = 'Markdown works: **bold**, *italic*, `code`, [links](https://…)'
  const row = el('div', 'form-row')
  const point = el('button', 'point-toggle')
  point.type = 'button'
  point.textContent = 'Point'
  point.title = 'Click a point of the content to comment on it'
  point.setAttribute('aria-pressed', 'false')
  point.addEventListener('click', () => p.setPointMode(!p.state.pointMode))
  const send = el('button', 'primary')
  send.type = 'submit'
  send.textContent = 'Comment'
  row.append(point, send)
  const status = el('p', 'hint form-status')
  status.setAttribute('role', 'status')
  root.append(label, body, row, status)
  const say = (text: string, error = false) => {
    status.textContent = text
    status.classList.toggle('error-text', error)
  }
  const form: Form = { root, body, name, point, say, describe: note.describe }
  sendsComments(p, form, send)
  note.describe()
  return form
}

/** What the next comment is on, and the button that puts it back on the whole canvas. */
function anchorNote(p: Panel) {
  const root = el('div', 'anchor-note')
  const text = el('p', 'hint')
  const clear = el('button', 'small subtle')
  clear.type = 'button'
  clear.textContent = 'On the whole canvas instead'
  clear.addEventListener('click', () => p.setAnchor(null))
  root.append(text, clear)
  const describe = () => {
    const anchor = p.state.anchor
    if (anchor && 'quote' in anchor) {
      const exact = anchor.quote.exact
      text.textContent = `On “${exact.length > 80 ? exact.slice(0, 80) + '…' : exact}”`
    } else if (anchor && 'point' in anchor) {
      text.textContent = 'On the point you clicked.'
    } else {
      text.textContent = p.frame
        ? 'On the whole canvas. Select text in it, or choose Point, to comment on a part.'
        : 'On the whole canvas.'
    }
    clear.hidden = anchor === null
  }
  return { root, describe }
}

/** A visitor's name field, filled in from what this browser remembers. */
function nameField(root: HTMLFormElement) {
  const label = el('label')
  label.textContent = 'Your name'
  const name = el('input')
  name.autocomplete = 'name'
  name.maxLength = 60
  name.required = true
  name.id = 'comment-name'
  label.htmlFor = 'comment-name'
  try {
    name.value = localStorage.getItem(NAME_KEY) ?? ''
  } catch {
    // Storage refused (a private window): the name is asked each time.
  }
  name.addEventListener('change', () => {
    try {
      localStorage.setItem(NAME_KEY, name.value.trim())
    } catch {
      // As above.
    }
  })
  root.append(label, name)
  return name
}

function sendsComments(p: Panel, form: Form, send: HTMLButtonElement) {
  // The key this comment is posted with: sent again unchanged, it makes no second comment.
  let postKey = newPostKey()
  form.body.addEventListener('input', () => (postKey = newPostKey()))
  form.root.addEventListener('submit', (event) => {
    event.preventDefault()
    const who = p.visitorName()
    if (who === null) return
    if (!form.body.value.trim()) {
      form.say('Write something first.', true)
      form.body.focus()
      return
    }
    send.disabled = true
    const payload: Record<string, unknown> = { body: form.body.value }
    if (p.state.anchor) payload.anchor = p.state.anchor
    if (!p.owner) payload.name = who
    else payload.version = p.shown
    p.api('', { method: 'POST', body: JSON.stringify(payload) }, postKey)
      .then((made) => {
        form.body.value = ''
        postKey = newPostKey()
        p.setAnchor(null)
        form.say('Posted.')
        upsert(p, made as Comment)
      })
      .catch(p.failed)
      .finally(() => (send.disabled = false))
  })
}

/** A visitor's name, from the form; '' on the owner's page; null (and said) when it is missing. */
export function visitorName(p: Panel): string | null {
  if (p.owner) return ''
  const name = p.form.name!.value.trim()
  if (name) return name
  p.form.say('Enter your name first: it is shown with what you write.', true)
  p.openPanel()
  p.form.name!.focus()
  return null
}
