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

/**
 * Opens the list toward whichever side keeps it inside the window: leftwards or rightwards, and
 * upwards when it would end below the window and there is room above its button (a list's last
 * row at the foot of the page).
 */
function place(menu: HTMLDetailsElement) {
  const items = menu.querySelector<HTMLElement>('.items')
  if (!items) return
  items.classList.remove('start', 'up')
  // A phone's sheet at the foot of the screen: always whole.
  if (getComputedStyle(items).position === 'fixed') return
  const box = items.getBoundingClientRect()
  if (box.left < EDGE) items.classList.add('start')
  const above = menu.getBoundingClientRect().top
  if (box.bottom > window.innerHeight - EDGE && above - box.height - EDGE >= EDGE) {
    items.classList.add('up')
  }
}
