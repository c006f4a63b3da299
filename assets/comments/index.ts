// The comments panel of the owner's page and of a share page that allows comments: the list (open
// comments, resolved ones on demand) with Markdown bodies, replies and the owner's actions; the
// form, anchored to what is selected or pointed at in the content; and the comments' highlights in
// the content frame. New comments and changes reach it live (assets/live.ts) without a reload.
// State (state.ts) is kept apart from its views (thread.ts, form.ts, frame.ts, drawer.ts).
import type { Comment } from '../../src/schema/responses'
import { commentsApi } from './api'
import { drawer } from './drawer'
import { COMMENT_EVENT, ID, type CommentEvent } from './events'
import { buildForm, visitorName } from './form'
import { focus, listenToFrame, post, tellFrame } from './frame'
import type { Panel } from './panel'
import { newState } from './state'
import { drawList, remove, upsert } from './thread'

export function commentPanels() {
  const root = document.querySelector<HTMLElement>('[data-comments]')
  if (!root || !window.fetch) return
  const p = panelOf(root)
  listenToFrame(p)
  // The owner chooses whether resolved threads show; a link's readers always see them, folded.
  const resolvedBox = root.querySelector<HTMLInputElement>('[data-comments-resolved]')
  if (p.owner && resolvedBox) {
    root.querySelector('[data-comments-resolved-label]')!.removeAttribute('hidden')
    resolvedBox.addEventListener('change', () => {
      p.state.showResolved = resolvedBox.checked
      load(p)
    })
  }
  document.addEventListener(COMMENT_EVENT, (event) => {
    const live = (event as CustomEvent<CommentEvent>).detail
    if (live.type === 'comment' && live.comment && ID.test(live.comment.comment_id)) {
      upsert(p, live.comment)
    } else if (live.type === 'comment_deleted' && typeof live.comment_id === 'string') {
      remove(p, live.comment_id)
    }
  })
  load(p)
}

function panelOf(root: HTMLElement): Panel {
  const owner = root.hasAttribute('data-owner')
  const toggles = document.querySelectorAll<HTMLElement>('[data-comments-toggle]')
  const place = drawer({ root, toggles })
  const p = {
    root,
    list: root.querySelector<HTMLElement>('[data-comments-list]')!,
    empty: root.querySelector<HTMLElement>('[data-comments-empty]')!,
    toggles,
    frame: root.closest('.stage')!.querySelector('iframe'),
    owner,
    moderate: root.hasAttribute('data-moderate'),
    shown: Number(root.getAttribute('data-shown')),
    state: newState(owner),
    api: commentsApi(
      root.getAttribute('data-comments')!,
      owner ? (root.getAttribute('data-csrf') ?? '') : null,
    ),
    render: () => {
      drawList(p)
      tellFrame(p)
    },
    drawList: () => drawList(p),
    focus: (id: string) => focus(p, id),
    setAnchor: (anchor) => {
      p.state.anchor = anchor
      p.form.describe()
    },
    setPointMode: (on) => {
      p.state.pointMode = on
      p.form.point.setAttribute('aria-pressed', String(on))
      p.form.point.textContent = on ? 'Click the content…' : 'Point'
      post(p, { type: 'mode', point: on })
    },
    openPanel: place.open,
    failed: (err) =>
      p.form.say(err instanceof Error ? err.message : 'That did not work. Try again.', true),
    visitorName: () => visitorName(p),
  } as Panel
  p.form = buildForm(p)
  root.appendChild(p.form.root)
  return p
}

function load(p: Panel) {
  p.api(p.state.showResolved ? '?status=all' : '?status=open')
    .then((body) => {
      p.state.comments.clear()
      for (const c of (body as { comments: Comment[] }).comments)
        p.state.comments.set(c.comment_id, c)
      p.render()
    })
    .catch(() => {})
}
