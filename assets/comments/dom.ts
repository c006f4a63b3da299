// Small helpers of the comments panel's view: elements, chips, buttons, times, post keys.

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string) {
  const node = document.createElement(tag)
  if (cls) node.className = cls
  return node
}

export function chip(label: string, title?: string) {
  const span = el('span', 'chip')
  span.textContent = label
  if (title) span.title = title
  return span
}

export function action(label: string, cls: string, onClick: () => void) {
  const button = el('button', cls)
  button.type = 'button'
  button.textContent = label
  button.addEventListener('click', onClick)
  return button
}

/** "just now", "5 min ago", "3 h ago", "12 days ago", then the date. */
export function ago(iso: string) {
  const minutes = Math.round((Date.now() - Date.parse(iso)) / 60_000)
  if (!(minutes >= 1)) return 'just now'
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 48) return `${hours} h ago`
  const days = Math.round(hours / 24)
  return days < 60 ? `${days} days ago` : iso.slice(0, 10)
}

/** A fresh Idempotency-Key for a post: 128 random bits. */
export function newPostKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}
