// A file or folder dropped on the form (on the whole page, with `data-page-drop`): shown, and
// published at once. What the drag carries is said while it is over the page.
import { siteFromEntries } from './picking'
import { send } from './send'
import type { UploadForm } from './view'

export function dropsOn(view: UploadForm) {
  const form = view.form
  const target: HTMLElement = form.hasAttribute('data-page-drop') ? document.body : form
  let depth = 0
  const dragging = (on: boolean) => {
    form.classList.toggle('over', on)
    if (target === document.body) document.body.classList.toggle('dragging', on)
  }
  const carriesFiles = (e: DragEvent) => Boolean(e.dataTransfer?.types.includes('Files'))
  target.addEventListener('dragenter', (e) => {
    if (!carriesFiles(e) || view.busy) return
    e.preventDefault()
    depth++
    dragging(true)
  })
  target.addEventListener('dragover', (e) => {
    if (!carriesFiles(e)) return
    e.preventDefault()
    if (e.dataTransfer) e.dataTransfer.dropEffect = view.busy ? 'none' : 'copy'
  })
  target.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1)
    if (depth === 0) dragging(false)
  })
  target.addEventListener('drop', (e) => {
    e.preventDefault()
    depth = 0
    dragging(false)
    if (!view.busy && e.dataTransfer) dropped(view, e.dataTransfer)
  })
}

function dropped(view: UploadForm, data: DataTransfer) {
  // The entries must be taken while the event lasts; the folders are read afterwards.
  const entries = Array.from(data.items)
    .filter((item) => item.kind === 'file')
    .map((item) => item.webkitGetAsEntry?.() ?? null)
  const files = Array.from(data.files)
  const single = entries.length <= 1 && !entries.some((entry) => entry?.isDirectory)
  if ((single || entries.some((entry) => entry === null)) && files.length === 1) {
    view.show({ kind: 'file', file: files[0] })
    void send(view, { kind: 'file', file: files[0] })
    return
  }
  view.say('Reading the folder…')
  siteFromEntries(
    entries.filter((entry) => entry !== null),
    files,
    view.maxFiles,
  )
    .then((site) => {
      view.show(site)
      return send(view, site)
    })
    .catch((err) => view.fail(err, null))
}
