// Uploads from a `form[data-upload]`: a file, or a folder as a site (as `svc push <folder>` makes
// one). Each file's hash and type first, then its bytes straight to storage with a progress bar,
// then the canvas published and opened. The form's plain post is the fallback. A file or folder
// dropped on the form (on the whole page, with `data-page-drop`) starts at once; one chosen with
// the buttons is shown, name and size, until Publish.
import type { UploadRequest } from '../src/schema/requests'
import type { Presign } from '../src/schema/responses'
import { isLeftOut, itemListProblem, itemPathProblem } from '../src/lib/item-paths'
import { formatSize } from '../src/lib/format'

type Described = UploadRequest
type Presigned = Presign
type Published = { location: string }

/** A file of a site, by its path in the site. */
type Picked = { file: File; path: string }
/** What one Publish sends: a file, or the files of a site and its title. */
type Batch =
  { kind: 'file'; file: File } | { kind: 'site'; name: string; files: Picked[]; left: string[] }

/** A failure said to a person: what went wrong, and whether trying again may help. */
class UploadError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message)
  }
}

// Files sent side by side for a site: enough to hide each request's latency, few enough to keep
// the memory of the files being hashed small.
const AT_ONCE = 4

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
  const input = form.querySelector<HTMLInputElement>('#upload-file')!
  const folderInput = form.querySelector<HTMLInputElement>('[data-folder-input]')
  const chosen = form.querySelector<HTMLElement>('[data-chosen]')!
  const progressBox = form.querySelector<HTMLElement>('[data-progress]')!
  const bar = progressBox.querySelector('progress')!
  const percent = progressBox.querySelector<HTMLElement>('[data-percent]')!
  const status = form.querySelector<HTMLElement>('[data-status]')!
  const errorBox = form.querySelector<HTMLElement>('[data-error]')!
  const errorText = errorBox.querySelector<HTMLElement>('[data-error-text]')!
  const retry = errorBox.querySelector<HTMLButtonElement>('[data-retry]')!
  const csrf = form.querySelector<HTMLInputElement>('input[name=_csrf]')!.value
  const canvasField = form.querySelector<HTMLInputElement>('input[name=canvas_id]')
  const maxBytes = Number(form.getAttribute('data-max-bytes'))
  const maxFiles = Number(form.getAttribute('data-max-files')) || 1000
  let busy = false
  let picked: Batch | null = null
  let failed: Batch | null = null

  // The script takes over: what was chosen is said in words, and a folder can be chosen too.
  form.classList.add('enhanced')
  form.noValidate = true
  chosen.textContent = ''
  if (folderInput && 'webkitdirectory' in folderInput) {
    folderInput.disabled = false
    for (const el of form.querySelectorAll<HTMLElement>('[data-with-js]')) el.hidden = false
  }

  function say(text: string) {
    status.textContent = text
  }
  /** Says what failed in the danger colour; a batch that may succeed again gets a Retry. */
  function fail(err: unknown, batch: Batch | null) {
    const known = err instanceof UploadError
    errorText.textContent = known ? err.message : `The upload failed: ${String(err)}`
    failed = known && err.retry ? batch : null
    retry.hidden = failed === null
    errorBox.hidden = false
    say('')
    progressBox.hidden = true
  }
  function progress(sent: number, total: number) {
    const fraction = total > 0 ? Math.min(1, sent / total) : 1
    progressBox.hidden = false
    bar.value = Math.round(fraction * 100)
    percent.textContent = `${Math.round(fraction * 100)}%`
  }
  function disable(disabled: boolean) {
    for (const el of form.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input')) {
      if (el.type !== 'hidden') el.disabled = disabled
    }
  }
  function show(batch: Batch) {
    picked = batch
    const strong = document.createElement('b')
    if (batch.kind === 'file') {
      strong.textContent = batch.file.name
      chosen.replaceChildren(strong, ` · ${formatSize(batch.file.size)}`)
    } else {
      const bytes = batch.files.reduce((sum, f) => sum + f.file.size, 0)
      const count = batch.files.length === 1 ? '1 file' : `${batch.files.length} files`
      const left = batch.left.length ? ` · ${batch.left.length} hidden left out` : ''
      strong.textContent = `${batch.name}/`
      chosen.replaceChildren(strong, ` · ${count} · ${formatSize(bytes)}${left}`)
      chosen.title = batch.left.length ? `Left out: ${batch.left.join(', ')}` : ''
    }
  }

  async function send(batch: Batch) {
    if (busy) return
    busy = true
    errorBox.hidden = true
    disable(true)
    try {
      const location =
        batch.kind === 'file' ? await sendFile(batch.file) : await sendSite(batch, maxFiles)
      progress(1, 1)
      say('Done: opening it…')
      window.location.assign(location)
    } catch (err) {
      busy = false
      disable(false)
      fail(err, batch)
    }
  }

  async function sendFile(file: File): Promise<string> {
    if (maxBytes && file.size > maxBytes) throw tooLarge(file.name, maxBytes)
    say(`Reading ${file.name}…`)
    progress(0, file.size)
    const body = await describe(file)
    const presigned = await postJson<Presigned>('/upload/presign', body, csrf)
    if (presigned.exists) {
      say('Already stored: using the copy on the server.')
    } else {
      say(`Uploading ${file.name}…`)
      await putFile(presigned, file, (sent) => progress(sent, file.size))
    }
    say('Publishing…')
    const done = await postJson<Published>(
      '/upload/finish',
      { ...body, name: file.name, canvas_id: canvasField?.value },
      csrf,
    )
    return done.location
  }

  async function sendSite(site: Extract<Batch, { kind: 'site' }>, limit: number) {
    checkSite(site, limit, maxBytes)
    const total = site.files.reduce((sum, f) => sum + f.file.size, 0)
    const sent = new Map<string, number>()
    const report = () =>
      progress(
        [...sent.values()].reduce((a, b) => a + b, 0),
        total,
      )
    let done = 0
    const items: { path: string; file_id: string }[] = new Array(site.files.length)
    say(`Uploading ${site.files.length} files…`)
    progress(0, total)
    let next = 0
    const worker = async () => {
      while (next < site.files.length) {
        const index = next++
        const { file, path } = site.files[index]
        const body = await describe(file)
        const presigned = await postJson<Presigned>('/upload/presign', body, csrf)
        if (!presigned.exists) {
          await putFile(presigned, file, (bytes) => {
            sent.set(path, bytes)
            report()
          })
        }
        sent.set(path, file.size)
        report()
        const ready = await postJson<{ file_id: string }>('/upload/finalize', body, csrf)
        items[index] = { path, file_id: ready.file_id }
        done++
        say(`Uploaded ${done} of ${site.files.length} files…`)
      }
    }
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, site.files.length) }, worker))
    say('Publishing the site…')
    const published = await postJson<Published>(
      '/upload/finish',
      { name: site.name, canvas_id: canvasField?.value, items },
      csrf,
    )
    return published.location
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault()
    const file = input.files?.[0]
    const batch = picked ?? (file ? { kind: 'file' as const, file } : null)
    if (batch) void send(batch)
    else fail(new UploadError('Choose a file or a folder first.', false), null)
  })
  input.addEventListener('change', () => {
    if (input.files?.[0]) show({ kind: 'file', file: input.files[0] })
  })
  folderInput?.addEventListener('change', () => {
    const files = Array.from(folderInput.files ?? [])
    if (files.length === 0) return
    try {
      show(siteFromPicker(files, maxFiles))
    } catch (err) {
      fail(err, null)
    }
  })
  retry.addEventListener('click', () => {
    if (failed) void send(failed)
  })

  const target: HTMLElement = form.hasAttribute('data-page-drop') ? document.body : form
  let depth = 0
  const dragging = (on: boolean) => {
    form.classList.toggle('over', on)
    if (target === document.body) document.body.classList.toggle('dragging', on)
  }
  const carriesFiles = (e: DragEvent) => Boolean(e.dataTransfer?.types.includes('Files'))
  target.addEventListener('dragenter', (e) => {
    if (!carriesFiles(e) || busy) return
    e.preventDefault()
    depth++
    dragging(true)
  })
  target.addEventListener('dragover', (e) => {
    if (!carriesFiles(e)) return
    e.preventDefault()
    if (e.dataTransfer) e.dataTransfer.dropEffect = busy ? 'none' : 'copy'
  })
  target.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1)
    if (depth === 0) dragging(false)
  })
  target.addEventListener('drop', (e) => {
    e.preventDefault()
    depth = 0
    dragging(false)
    if (busy || !e.dataTransfer) return
    // The entries must be taken while the event lasts; the folders are read afterwards.
    const entries = Array.from(e.dataTransfer.items)
      .filter((item) => item.kind === 'file')
      .map((item) => item.webkitGetAsEntry?.() ?? null)
    const files = Array.from(e.dataTransfer.files)
    const single = entries.length <= 1 && !entries.some((entry) => entry?.isDirectory)
    if (single || entries.some((entry) => entry === null)) {
      if (files.length === 1) {
        show({ kind: 'file', file: files[0] })
        void send({ kind: 'file', file: files[0] })
        return
      }
    }
    say('Reading the folder…')
    siteFromEntries(
      entries.filter((entry) => entry !== null),
      files,
      maxFiles,
    )
      .then((site) => {
        show(site)
        return send(site)
      })
      .catch((err) => fail(err, null))
  })
}

/** The file's hash and type, as the server's presign and finish take them. */
async function describe(file: File): Promise<Described> {
  const buffer = await file.arrayBuffer()
  const digest = await crypto.subtle.digest('SHA-256', buffer)
  return {
    sha256: hex(digest),
    ext: extOf(file.name, buffer.slice(0, 4096)),
    size: file.size,
    mime: /^[\w.+-]+\/[\w.+-]+$/.test(file.type) ? file.type : 'application/octet-stream',
  }
}

/** A folder chosen with the folder button: paths below the folder itself. */
function siteFromPicker(files: File[], maxFiles: number): Batch {
  const picked: Picked[] = []
  const left: string[] = []
  const name = files[0].webkitRelativePath.split('/')[0] || 'site'
  for (const file of files) {
    const parts = (file.webkitRelativePath || file.name).split('/').slice(1)
    const path = parts.join('/') || file.name
    if (parts.some(isLeftOut)) left.push(path)
    else picked.push({ file, path })
    if (picked.length > maxFiles) throw tooMany(maxFiles)
  }
  return { kind: 'site', name, files: sorted(picked), left }
}

/**
 * Dropped entries as a site: one folder's files by their paths below it (the folder names the
 * site); several files or folders side by side by their own names (the main file names it).
 */
async function siteFromEntries(
  entries: FileSystemEntry[],
  files: File[],
  maxFiles: number,
): Promise<Batch> {
  const picked: Picked[] = []
  const left: string[] = []
  const one = entries.length === 1 && entries[0].isDirectory
  const walk = async (entry: FileSystemEntry, prefix: string) => {
    const path = prefix + entry.name
    if (isLeftOut(entry.name)) {
      left.push(path)
      return
    }
    if (entry.isFile) {
      picked.push({ file: await fileOf(entry as FileSystemFileEntry), path })
      if (picked.length > maxFiles) throw tooMany(maxFiles)
    } else if (entry.isDirectory) {
      for (const child of await children(entry as FileSystemDirectoryEntry)) {
        await walk(child, `${path}/`)
      }
    }
  }
  if (entries.length === 0) {
    // No entries API: the dropped files themselves, side by side.
    for (const file of files) picked.push({ file, path: file.name })
  } else if (one) {
    for (const child of await children(entries[0] as FileSystemDirectoryEntry)) {
      await walk(child, '')
    }
  } else {
    for (const entry of entries) await walk(entry, '')
  }
  const site = sorted(picked)
  const main = site.find((f) => f.path === 'index.html') ?? site[0]
  const name = one ? entries[0].name : (main?.path.split('/').pop() ?? 'site')
  return { kind: 'site', name, files: site, left }
}

/** The checks the server makes of a site, made first so that nothing is sent for nothing. */
function checkSite(site: Extract<Batch, { kind: 'site' }>, maxFiles: number, maxBytes: number) {
  if (site.files.length === 0) {
    throw new UploadError(
      `Nothing to publish in ${site.name}: hidden files and node_modules are left out, as svc push leaves them.`,
      false,
    )
  }
  if (site.files.length > maxFiles) throw tooMany(maxFiles)
  for (const { file, path } of site.files) {
    const problem = itemPathProblem(path)
    if (problem)
      throw new UploadError(`“${path}” cannot be part of a site: its path ${problem}.`, false)
    if (maxBytes && file.size > maxBytes) throw tooLarge(path, maxBytes)
  }
  const clash = itemListProblem(
    site.files.map((f) => f.path),
    (path) => `“${path}”`,
  )
  if (clash) throw new UploadError(`These files cannot make one site: ${clash.message}.`, false)
}

const sorted = (files: Picked[]) =>
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))

const tooMany = (maxFiles: number) =>
  new UploadError(
    `This folder holds more than ${maxFiles} files, the most a site may have. Publish a part of it, or leave files out.`,
    false,
  )

const tooLarge = (name: string, maxBytes: number) =>
  new UploadError(
    `${name} is over ${formatSize(maxBytes)}, the most a page can send: push it with svc instead.`,
    false,
  )

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject))
}

/** Every entry of a folder: the browser hands them out a batch at a time. */
async function children(folder: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = folder.createReader()
  const all: FileSystemEntry[] = []
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    )
    if (batch.length === 0) return all
    all.push(...batch)
  }
}

// Mirrors the server's rule for a file's type: its extension, else text or binary by its bytes.
function extOf(name: string, head: ArrayBuffer): string {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(name)
  if (match) return match[1].toLowerCase()
  const bytes = new Uint8Array(head)
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true })
  } catch {
    return 'bin'
  }
  return bytes.indexOf(0) >= 0 ? 'bin' : 'txt'
}

function hex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('')
}

const REASONS: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

async function postJson<T>(path: string, body: object, csrf: string): Promise<T> {
  let res: Response
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'X-CSRF-Token': csrf,
      },
      body: JSON.stringify(body),
    })
  } catch {
    throw dropped()
  }
  // Without a session the request is sent to log in, and answered with that page.
  if (res.redirected && new URL(res.url).pathname === '/login') {
    throw new UploadError(
      'Your session has ended. Log in again in another tab, then retry: nothing was lost here.',
      true,
    )
  }
  if (res.status >= 500) throw serverFailed(res.status)
  const json = /json/.test(res.headers.get('Content-Type') ?? '')
  const data: unknown = json ? await res.json().catch(() => null) : null
  if (res.ok && data) return data as T
  const error = (data as { error?: { code?: string; message?: string } } | null)?.error
  if (res.status === 429) {
    throw new UploadError('Too many uploads in a short time. Wait a minute, then retry.', true)
  }
  if (error?.code === 'forbidden') {
    throw new UploadError(
      `${error.message ?? 'Not allowed.'} Reload the page to try again with it.`,
      false,
    )
  }
  throw new UploadError(
    error?.message ??
      `The upload failed: the server answered ${res.status}. Retry, or reload the page.`,
    !error,
  )
}

const dropped = () =>
  new UploadError(
    'The connection to Canvas dropped before the upload finished. Check your connection, then retry.',
    true,
  )

const serverFailed = (status: number) =>
  new UploadError(
    `Canvas could not take the upload just now: the server answered ${status}${REASONS[status] ? ` (${REASONS[status]})` : ''}. Nothing was published. Retry in a moment.`,
    true,
  )

function putFile(presigned: Presigned, file: File, onProgress: (bytes: number) => void) {
  return new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('PUT', presigned.upload_url)
    for (const [name, value] of Object.entries(presigned.headers ?? {})) {
      xhr.setRequestHeader(name, value)
    }
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded)
    }
    xhr.onload = () => {
      // 412: the bytes are there already (another tab, an earlier try): nothing left to send.
      if ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 412) resolve()
      else if (xhr.status >= 500) reject(serverFailed(xhr.status))
      else
        reject(
          new UploadError(
            `Storage refused ${file.name} (${xhr.status}): its upload link may have expired. Retry to get a new one.`,
            true,
          ),
        )
    }
    xhr.onerror = () => reject(dropped())
    xhr.send(file)
  })
}
