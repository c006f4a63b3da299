// Publishing what was picked: a file's hash and type first, then its bytes straight to storage
// with the progress shown, then the canvas published and opened; a site's files a few at a time.
import type { Presign } from '../../src/schema/responses'
import { tooLarge } from './errors'
import { checkSite, type Batch, type Site } from './picking'
import { describe, postJson, putFile } from './transfer'
import type { UploadForm } from './view'

type Published = { location: string }

// Files sent side by side for a site: enough to hide each request's latency, few enough to keep
// the memory of the files being hashed small.
const AT_ONCE = 4

export async function send(view: UploadForm, batch: Batch) {
  if (view.busy) return
  view.busy = true
  view.clearFailure()
  view.disable(true)
  try {
    const location =
      batch.kind === 'file' ? await sendFile(view, batch.file) : await sendSite(view, batch)
    view.progress(1, 1)
    view.say('Done: opening it…')
    window.location.assign(location)
  } catch (err) {
    view.busy = false
    view.disable(false)
    view.fail(err, batch)
  }
}

async function sendFile(view: UploadForm, file: File): Promise<string> {
  if (view.maxBytes && file.size > view.maxBytes) throw tooLarge(file.name, view.maxBytes)
  view.say(`Reading ${file.name}…`)
  view.progress(0, file.size)
  const body = await describe(file)
  const presigned = await postJson<Presign>('/upload/presign', body, view.csrf)
  if (presigned.exists) {
    view.say('Already stored: using the copy on the server.')
  } else {
    view.say(`Uploading ${file.name}…`)
    await putFile(presigned, file, (sent) => view.progress(sent, file.size))
  }
  view.say('Publishing…')
  const finish = { ...body, name: file.name, canvas_id: view.canvasId() }
  return (await postJson<Published>('/upload/finish', finish, view.csrf)).location
}

async function sendSite(view: UploadForm, site: Site): Promise<string> {
  checkSite(site, view.maxFiles, view.maxBytes)
  const total = site.files.reduce((sum, f) => sum + f.file.size, 0)
  const sent = new Map<string, number>()
  const report = () =>
    view.progress(
      [...sent.values()].reduce((a, b) => a + b, 0),
      total,
    )
  let done = 0
  let next = 0
  const items: { path: string; file_id: string }[] = new Array(site.files.length)
  view.say(`Uploading ${site.files.length} files…`)
  view.progress(0, total)
  const worker = async () => {
    while (next < site.files.length) {
      const index = next++
      const { file, path } = site.files[index]
      const body = await describe(file)
      const presigned = await postJson<Presign>('/upload/presign', body, view.csrf)
      if (!presigned.exists) {
        await putFile(presigned, file, (bytes) => {
          sent.set(path, bytes)
          report()
        })
      }
      sent.set(path, file.size)
      report()
      const ready = await postJson<{ file_id: string }>('/upload/finalize', body, view.csrf)
      items[index] = { path, file_id: ready.file_id }
      view.say(`Uploaded ${++done} of ${site.files.length} files…`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, site.files.length) }, worker))
  view.say('Publishing the site…')
  const finish = { name: site.name, canvas_id: view.canvasId(), items }
  return (await postJson<Published>('/upload/finish', finish, view.csrf)).location
}
