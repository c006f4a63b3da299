// Menus (`details.menu`): one open at a time; Escape closes it and gives the focus back to its
// button; a tap outside closes it (the layer under an open menu does that without script too). A
// list that would cross an edge of the window opens toward the other side instead.

const EDGE = 8

export function menus() {
  const all = () => document.querySelectorAll<HTMLDetailsElement>('details.menu')
  document.addEventListener(
    'toggle',
    (e) => {
      const menu = e.target
      if (!(menu instanceof HTMLDetailsElement) || !menu.matches('details.menu') || !menu.open) {
        return
      }
      for (const other of all()) if (other !== menu) other.open = false
      place(menu)
    },
    // `toggle` does not bubble: heard on its way down.
    true,
  )
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return
    for (const menu of all()) {
      if (!menu.open) continue
      menu.open = false
      menu.querySelector('summary')?.focus()
    }
  })
  window.addEventListener('resize', () => {
    for (const menu of all()) if (menu.open) place(menu)
  })
}

/** Opens the list toward whichever side keeps it inside the window. */
function place(menu: HTMLDetailsElement) {
  const items = menu.querySelector<HTMLElement>('.items')
  if (!items || getComputedStyle(items).position === 'fixed') return
  items.classList.remove('start')
  if (items.getBoundingClientRect().left < EDGE) items.classList.add('start')
}
