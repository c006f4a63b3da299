import type { Flash } from '../flash'

/** What the last action did (or why it did nothing), with any value to copy. */
export function Notice({ flash }: { flash?: Flash }) {
  if (!flash) return null
  const ok = flash.tone === 'ok'
  return (
    <div class={`notice ${ok ? 'success' : 'error'}`} role={ok ? 'status' : 'alert'}>
      <p>{flash.text}</p>
      {(flash.copy ?? []).map((item, i) => (
        <>
          <p class="hint">{item.label}</p>
          <code class="block" id={`copy-${i}`}>
            {item.value}
          </code>
          <p>
            <button type="button" class="small" data-copy={`copy-${i}`}>
              Copy
            </button>
          </p>
        </>
      ))}
    </div>
  )
}
