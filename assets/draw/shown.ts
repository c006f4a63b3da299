// What the drawing scripts of a frame share: the theme the frame shows (its stylesheet follows the
// system's setting, src/render/frame-style.ts), and a drawing that failed shown as its error and
// its source, never as a blank space.

export const dark = (): boolean => matchMedia('(prefers-color-scheme: dark)').matches

/** The elements of the frame that hold a source of this kind (the server marked them). */
export const sources = (selector: string): HTMLElement[] => [
  ...document.querySelectorAll<HTMLElement>(selector),
]

/** `element` replaced by the reason its source was not drawn, the source kept under it. */
export function showFailure(element: HTMLElement, what: string, error: unknown) {
  const box = document.createElement('div')
  box.className = 'draw-failed'
  const reason = document.createElement('p')
  reason.className = 'notice'
  reason.textContent = `This ${what} could not be drawn: ${messageOf(error)}`
  const source = document.createElement('pre')
  source.textContent = element.dataset.source ?? element.textContent ?? ''
  box.append(reason, source)
  element.replaceWith(box)
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  // A parser's message can be long (mermaid's lists every token it expected).
  return text.length > 600 ? `${text.slice(0, 600)}…` : text
}
