// Uploads from a `form[data-upload]`: the file's hash and type first, then its bytes straight to
// storage with a progress bar, then the canvas published. The form's plain post is the fallback.

type Described = {
  sha256: string
  ext: string
  size: number
  mime: string
  name?: string
  canvas_id?: string
}
type Presigned = { exists?: boolean; upload_url: string; headers?: Record<string, string> }
type Published = { location: string }

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
  const input = form.querySelector<HTMLInputElement>('input[type=file]')!
  const bar = form.querySelector('progress')!
  const status = form.querySelector<HTMLElement>('[data-status]')!
  const csrf = form.querySelector<HTMLInputElement>('input[name=_csrf]')!.value
  const canvasField = form.querySelector<HTMLInputElement>('input[name=canvas_id]')
  const maxBytes = Number(form.getAttribute('data-max-bytes'))
  let busy = false

  function say(text: string, isError = false) {
    status.textContent = text
    status.classList.toggle('danger', isError)
  }
  function progress(fraction: number) {
    bar.hidden = false
    bar.value = Math.round(fraction * 100)
  }
  function disable(disabled: boolean) {
    for (const el of form.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input')) {
      el.disabled = disabled
    }
  }

  async function send(file: File) {
    if (busy) return
    if (maxBytes && file.size > maxBytes) {
      say(`${file.name} is too large to send from the page: push it with svc instead.`, true)
      return
    }
    busy = true
    disable(true)
    say(`Reading ${file.name}…`)
    progress(0)
    try {
      const buffer = await file.arrayBuffer()
      const digest = await crypto.subtle.digest('SHA-256', buffer)
      const body: Described = {
        sha256: hex(digest),
        ext: extOf(file.name, buffer.slice(0, 4096)),
        size: file.size,
        mime: /^[\w.+-]+\/[\w.+-]+$/.test(file.type) ? file.type : 'application/octet-stream',
      }
      const presigned = await postJson<Presigned>('/upload/presign', body, csrf)
      if (presigned.exists) {
        progress(1)
        say('Already stored: using the copy on the server.')
      } else {
        say(`Uploading ${file.name}…`)
        await putFile(presigned, file, progress)
      }
      say('Publishing…')
      body.name = file.name
      if (canvasField) body.canvas_id = canvasField.value
      const done = await postJson<Published>('/upload/finish', body, csrf)
      progress(1)
      window.location.assign(done.location)
    } catch (err) {
      busy = false
      disable(false)
      bar.hidden = true
      say(err instanceof Error ? err.message : String(err), true)
    }
  }

  form.addEventListener('submit', (e) => {
    if (!input.files?.length) return
    e.preventDefault()
    void send(input.files[0])
  })
  for (const type of ['dragenter', 'dragover']) {
    form.addEventListener(type, (e) => {
      e.preventDefault()
      form.classList.add('over')
    })
  }
  form.addEventListener('dragleave', (e) => {
    // Leaving for one of the form's own children is not leaving the form.
    const to = e.relatedTarget
    if (!(to instanceof Node && form.contains(to))) form.classList.remove('over')
  })
  form.addEventListener('drop', (e) => {
    e.preventDefault()
    form.classList.remove('over')
    const file = e.dataTransfer?.files[0]
    if (file) void send(file)
  })
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

async function postJson<T>(path: string, body: Described, csrf: string): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'X-CSRF-Token': csrf,
    },
    body: JSON.stringify(body),
  })
  // A page instead of JSON: the session ended and the request was sent to log in.
  if (!/json/.test(res.headers.get('Content-Type') ?? '')) {
    throw new Error('Your session has ended: reload the page and log in again.')
  }
  const data: unknown = await res.json().catch(() => ({}))
  if (!res.ok) {
    const message = (data as { error?: { message?: string } } | null)?.error?.message
    throw new Error(message || `The server answered ${res.status}.`)
  }
  return data as T
}

function putFile(presigned: Presigned, file: File, onProgress: (fraction: number) => void) {
  return new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('PUT', presigned.upload_url)
    for (const [name, value] of Object.entries(presigned.headers ?? {})) {
      xhr.setRequestHeader(name, value)
    }
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total)
    }
    xhr.onload = () => {
      // 412: the bytes are there already (another tab, an earlier try): nothing left to send.
      if ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 412) resolve()
      else reject(new Error(`Storage refused the upload (${xhr.status}).`))
    }
    xhr.onerror = () => reject(new Error('The upload was interrupted. Try again.'))
    xhr.send(file)
  })
}
