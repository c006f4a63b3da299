/** A button with `data-copy="<id>"` copies the text of the element with that id. */
export function copyButtons() {
  document.addEventListener('click', (e) => {
    const button = e.target instanceof Element ? e.target.closest('[data-copy]') : null
    if (!button) return
    const source = document.getElementById(button.getAttribute('data-copy') ?? '')
    if (!source || !navigator.clipboard) return
    void navigator.clipboard.writeText((source.textContent ?? '').trim()).then(() => {
      button.textContent = 'Copied'
    })
  })
}
