// The message of the last action (`[data-notice]`: done, or refused) is where the eye is: focused
// (read out first) and scrolled into view, also when the page opened at a fragment elsewhere. The
// page's `autofocus` does the same without script, when there is no fragment.
export function notices() {
  const notice = document.querySelector<HTMLElement>('[data-notice]')
  if (!notice) return
  show(notice)
  if (!location.hash) return
  // A page opened at a fragment then gives the focus to its target, or drops it when the target
  // takes none (Chromium does so once the page has drawn): the message takes it back, once,
  // unless the person has done something by then.
  const keep = () => requestAnimationFrame(() => show(notice))
  const stop = () => notice.removeEventListener('focusout', keep)
  notice.addEventListener('focusout', keep, { once: true })
  for (const type of ['pointerdown', 'keydown']) {
    window.addEventListener(type, stop, { once: true, capture: true })
  }
}

function show(notice: HTMLElement) {
  notice.focus({ preventScroll: true })
  const box = notice.getBoundingClientRect()
  if (box.top < 0 || box.bottom > window.innerHeight) notice.scrollIntoView({ block: 'center' })
}

/** A dialog's Cancel (script only) folds the dialog and gives the focus back to its button. */
export function dialogs() {
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-close-dialog]')) {
    const dialog = button.closest('details')
    if (!dialog) continue
    button.hidden = false
    button.addEventListener('click', () => {
      dialog.open = false
      dialog.querySelector('summary')?.focus()
    })
  }
}
