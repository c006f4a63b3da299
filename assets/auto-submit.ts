/** A `select[data-autosubmit]` submits its form when changed; the form's own button then hides. */
export function autoSubmit() {
  for (const select of document.querySelectorAll<HTMLSelectElement>('select[data-autosubmit]')) {
    const form = select.form
    if (!form) continue
    for (const el of form.querySelectorAll<HTMLElement>('[data-without-js]')) el.hidden = true
    select.addEventListener('change', () => form.submit())
  }
}
