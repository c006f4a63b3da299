// The upload form as a person sees it: what was picked, the progress, what is happening, and a
// failure with its Retry when trying again may help. The form's own state lives here too.
import { formatSize } from '../../src/lib/format'
import { UploadError } from './errors'
import type { Batch } from './picking'

export type UploadForm = ReturnType<typeof uploadView>

export function uploadView(form: HTMLFormElement) {
  const chosen = form.querySelector<HTMLElement>('[data-chosen]')!
  const progressBox = form.querySelector<HTMLElement>('[data-progress]')!
  const bar = progressBox.querySelector('progress')!
  const percent = progressBox.querySelector<HTMLElement>('[data-percent]')!
  const status = form.querySelector<HTMLElement>('[data-status]')!
  const errorBox = form.querySelector<HTMLElement>('[data-error]')!
  const errorText = errorBox.querySelector<HTMLElement>('[data-error-text]')!
  const view = {
    form,
    input: form.querySelector<HTMLInputElement>('#upload-file')!,
    folderInput: form.querySelector<HTMLInputElement>('[data-folder-input]'),
    retry: errorBox.querySelector<HTMLButtonElement>('[data-retry]')!,
    csrf: form.querySelector<HTMLInputElement>('input[name=_csrf]')!.value,
    canvasId: () => form.querySelector<HTMLInputElement>('input[name=canvas_id]')?.value,
    maxBytes: Number(form.getAttribute('data-max-bytes')),
    maxFiles: Number(form.getAttribute('data-max-files')) || 1000,
    busy: false,
    picked: null as Batch | null,
    /** The batch a Retry sends again. */
    failed: null as Batch | null,
    say: (text: string) => (status.textContent = text),
    progress(sent: number, total: number) {
      const fraction = total > 0 ? Math.min(1, sent / total) : 1
      progressBox.hidden = false
      bar.value = Math.round(fraction * 100)
      percent.textContent = `${Math.round(fraction * 100)}%`
    },
    /** Says what failed in the danger colour; a batch that may succeed again gets a Retry. */
    fail(err: unknown, batch: Batch | null) {
      const known = err instanceof UploadError
      errorText.textContent = known ? err.message : `The upload failed: ${String(err)}`
      view.failed = known && err.retry ? batch : null
      view.retry.hidden = view.failed === null
      errorBox.hidden = false
      view.say('')
      progressBox.hidden = true
    },
    clearFailure: () => (errorBox.hidden = true),
    disable(disabled: boolean) {
      for (const el of form.querySelectorAll<HTMLButtonElement | HTMLInputElement>(
        'button, input',
      )) {
        if (el.type !== 'hidden') el.disabled = disabled
      }
    },
    show(batch: Batch) {
      view.picked = batch
      chosen.replaceChildren(...described(batch))
      chosen.title =
        batch.kind === 'site' && batch.left.length ? `Left out: ${batch.left.join(', ')}` : ''
    },
  }
  // The script takes over: what was chosen is said in words, and a folder can be chosen too.
  form.classList.add('enhanced')
  form.noValidate = true
  chosen.textContent = ''
  if (view.folderInput && 'webkitdirectory' in view.folderInput) {
    view.folderInput.disabled = false
    for (const el of form.querySelectorAll<HTMLElement>('[data-with-js]')) el.hidden = false
  }
  return view
}

/** A batch in words: its name in bold, then its size (and a site's count of files). */
function described(batch: Batch): (Node | string)[] {
  const strong = document.createElement('b')
  if (batch.kind === 'file') {
    strong.textContent = batch.file.name
    return [strong, ` · ${formatSize(batch.file.size)}`]
  }
  const bytes = batch.files.reduce((sum, f) => sum + f.file.size, 0)
  const count = batch.files.length === 1 ? '1 file' : `${batch.files.length} files`
  const left = batch.left.length ? ` · ${batch.left.length} hidden left out` : ''
  strong.textContent = `${batch.name}/`
  return [strong, ` · ${count} · ${formatSize(bytes)}${left}`]
}
