// Where the panel is: a drawer on a phone, a column beside the content on a screen, opened and
// closed by the bar's button (and Escape, on a phone).
import type { Panel } from './panel'

export function drawer(p: Pick<Panel, 'root' | 'toggles'>) {
  const stage = p.root.closest<HTMLElement>('.stage')!
  const phone = window.matchMedia('(max-width: 720px)')
  const isOpen = () =>
    phone.matches ? p.root.classList.contains('open') : !stage.classList.contains('comments-hidden')
  const sync = () => {
    for (const toggle of p.toggles) toggle.setAttribute('aria-expanded', String(isOpen()))
  }
  const open = () => {
    if (phone.matches) p.root.classList.add('open')
    else stage.classList.remove('comments-hidden')
    sync()
  }
  const close = () => {
    p.root.classList.remove('open')
    if (!phone.matches) stage.classList.add('comments-hidden')
    sync()
  }
  for (const toggle of p.toggles) {
    toggle.setAttribute('role', 'button')
    toggle.addEventListener('click', (event) => {
      event.preventDefault()
      if (isOpen()) return close()
      open()
      p.root.querySelector<HTMLElement>('h2')?.focus()
    })
  }
  p.root.querySelector('h2')?.setAttribute('tabindex', '-1')
  p.root.querySelector('[data-comments-close]')?.addEventListener('click', (event) => {
    event.preventDefault()
    close()
    p.toggles[0]?.focus()
  })
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && phone.matches && p.root.classList.contains('open')) {
      close()
      p.toggles[0]?.focus()
    }
  })
  // Opened by its address (#comments) before the script ran: the drawer stays open.
  if (location.hash === '#comments') {
    history.replaceState(null, '', location.pathname + location.search)
    open()
  }
  sync()
  return { open }
}
