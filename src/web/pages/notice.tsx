import type { Child } from 'hono/jsx'
import type { Flash } from '../flash'

/**
 * What the last action did (or why it did nothing), with any value to copy. It takes the focus
 * as the page loads (`autofocus` without script; the script also brings it into view when the
 * page opened at a fragment), so that it is seen and read out first.
 */
export function Notice({ flash }: { flash?: Flash }) {
  if (!flash) return null
  const ok = flash.tone === 'ok'
  return (
    <div
      class={`notice ${ok ? 'success' : 'error'}`}
      role={ok ? 'status' : 'alert'}
      tabindex={-1}
      autofocus
      data-notice
    >
      <p>{flash.text}</p>
      {(flash.copy ?? []).map((item, i) => (
        <>
          <p class="hint">{item.label}</p>
          <div class="copy-row">
            <code class="block" id={`copy-${i}`}>
              {item.value}
            </code>
            <button type="button" data-copy={`copy-${i}`}>
              Copy
            </button>
          </div>
        </>
      ))}
    </div>
  )
}

/** A form that came back refused: why, where the form is, focused like a notice. */
export function FormError({ children }: { children: Child }) {
  return (
    <div class="notice error" role="alert" tabindex={-1} autofocus data-notice>
      {children}
    </div>
  )
}

/** The notice for the element `at` names, if the message was about it. */
export const flashAt = (flash: Flash | undefined, at: string) =>
  flash?.at === at ? flash : undefined

/** The notice for the top of the page: a message about no element in particular. */
export const flashTop = (flash: Flash | undefined, places: string[]) =>
  flash && !(flash.at && places.includes(flash.at)) ? flash : undefined
