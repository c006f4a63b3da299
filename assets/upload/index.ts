// Uploads from a `form[data-upload]`: a file, or a folder as a site (as `svc push <folder>` makes
// one). Each file's hash and type first, then its bytes straight to storage with a progress bar,
// then the canvas published and opened. The form's plain post is the fallback. A file or folder
// dropped on the form (on the whole page, with `data-page-drop`) starts at once; one chosen with
// the buttons is shown, name and size, until Publish.
import { dropsOn } from './drop'
import { UploadError } from './errors'
import { siteFromPicker } from './picking'
import { send } from './send'
import { uploadView } from './view'

export function uploads() {
  const forms = document.querySelectorAll<HTMLFormElement>('form[data-upload]')
  for (const form of forms) uploadForm(form)
  // A file dropped beside the drop zone would make the browser open it and leave the page.
  if (forms.length) {
    for (const type of ['dragover', 'drop']) {
      document.addEventListener(type, (e) => e.preventDefault())
    }
  }
}

function uploadForm(form: HTMLFormElement) {
  if (!window.crypto || !crypto.subtle || !window.fetch) return
  const view = uploadView(form)
  const { input, folderInput } = view
  form.addEventListener('submit', (e) => {
    e.preventDefault()
    const file = input.files?.[0]
    const batch = view.picked ?? (file ? { kind: 'file' as const, file } : null)
    if (batch) void send(view, batch)
    else view.fail(new UploadError('Choose a file or a folder first.', false), null)
  })
  input.addEventListener('change', () => {
    if (input.files?.[0]) view.show({ kind: 'file', file: input.files[0] })
  })
  folderInput?.addEventListener('change', () => {
    const files = Array.from(folderInput.files ?? [])
    if (files.length === 0) return
    try {
      view.show(siteFromPicker(files, view.maxFiles))
    } catch (err) {
      view.fail(err, null)
    }
  })
  view.retry.addEventListener('click', () => {
    if (view.failed) void send(view, view.failed)
  })
  dropsOn(view)
}
