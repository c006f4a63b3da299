// The app's one script, served from the app's origin (the CSP allows no other). Every page works
// without it; it adds copy buttons, a version picker that needs no extra click, and uploads that
// go straight to storage with a progress bar (the page's plain form post is the fallback).

const COPY = `
document.addEventListener('click', function (e) {
  var button = e.target.closest('[data-copy]')
  if (!button) return
  var source = document.getElementById(button.getAttribute('data-copy'))
  if (!source || !navigator.clipboard) return
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    button.textContent = 'Copied'
  })
})
`

const AUTO_SUBMIT = `
document.querySelectorAll('select[data-autosubmit]').forEach(function (select) {
  var form = select.form
  form.querySelectorAll('[data-without-js]').forEach(function (el) { el.hidden = true })
  select.addEventListener('change', function () { form.submit() })
})
`

// Mirrors the server's rule for a file's type: its extension, else text or binary by its bytes.
const UPLOAD = `
function extOf(name, head) {
  var match = /\\.([A-Za-z0-9]{1,16})$/.exec(name)
  if (match) return match[1].toLowerCase()
  var bytes = new Uint8Array(head)
  try { new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true }) } catch (e) { return 'bin' }
  return bytes.indexOf(0) >= 0 ? 'bin' : 'txt'
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), function (b) { return b.toString(16).padStart(2, '0') }).join('')
}

function postJson(path, body, csrf) {
  return fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-Token': csrf },
    body: JSON.stringify(body),
  }).then(function (res) {
    // A page instead of JSON: the session ended and the request was sent to log in.
    if (!/json/.test(res.headers.get('Content-Type') || '')) {
      throw new Error('Your session has ended: reload the page and log in again.')
    }
    return res.json().catch(function () { return {} }).then(function (data) {
      if (!res.ok) throw new Error((data.error && data.error.message) || 'The server answered ' + res.status + '.')
      return data
    })
  })
}

function putFile(presign, file, onProgress) {
  return new Promise(function (resolve, reject) {
    var xhr = new XMLHttpRequest()
    xhr.open('PUT', presign.upload_url)
    Object.keys(presign.headers || {}).forEach(function (name) { xhr.setRequestHeader(name, presign.headers[name]) })
    xhr.upload.onprogress = function (e) { if (e.lengthComputable) onProgress(e.loaded / e.total) }
    xhr.onload = function () {
      // 412: the bytes are there already (another tab, an earlier try): nothing left to send.
      if ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 412) resolve()
      else reject(new Error('Storage refused the upload (' + xhr.status + ').'))
    }
    xhr.onerror = function () { reject(new Error('The upload was interrupted. Try again.')) }
    xhr.send(file)
  })
}

document.querySelectorAll('form[data-upload]').forEach(function (form) {
  if (!window.crypto || !crypto.subtle || !window.fetch) return
  var input = form.querySelector('input[type=file]')
  var bar = form.querySelector('progress')
  var status = form.querySelector('[data-status]')
  var csrf = form.querySelector('input[name=_csrf]').value
  var canvasField = form.querySelector('input[name=canvas_id]')
  var maxBytes = Number(form.getAttribute('data-max-bytes'))
  var busy = false
  function say(text, isError) {
    status.textContent = text
    status.classList.toggle('danger', !!isError)
  }
  function progress(fraction) {
    bar.hidden = false
    bar.value = Math.round(fraction * 100)
  }
  function send(file) {
    if (busy) return
    if (maxBytes && file.size > maxBytes) {
      say(file.name + ' is too large to send from the page: push it with svc instead.', true)
      return
    }
    busy = true
    form.querySelectorAll('button, input').forEach(function (el) { el.disabled = true })
    say('Reading ' + file.name + '…')
    progress(0)
    file.arrayBuffer().then(function (buffer) {
      return crypto.subtle.digest('SHA-256', buffer).then(function (digest) {
        var body = {
          sha256: hex(digest),
          ext: extOf(file.name, buffer.slice(0, 4096)),
          size: file.size,
          mime: /^[\\w.+-]+\\/[\\w.+-]+$/.test(file.type) ? file.type : 'application/octet-stream',
        }
        return postJson('/upload/presign', body, csrf).then(function (presign) {
          if (presign.exists) {
            progress(1)
            say('Already stored: using the copy on the server.')
            return body
          }
          say('Uploading ' + file.name + '…')
          return putFile(presign, file, progress).then(function () { return body })
        })
      })
    }).then(function (body) {
      say('Publishing…')
      body.name = file.name
      if (canvasField) body.canvas_id = canvasField.value
      return postJson('/upload/finish', body, csrf)
    }).then(function (done) {
      progress(1)
      window.location.assign(done.location)
    }).catch(function (err) {
      busy = false
      form.querySelectorAll('button, input').forEach(function (el) { el.disabled = false })
      bar.hidden = true
      say(err.message, true)
    })
  }
  form.addEventListener('submit', function (e) {
    if (!input.files.length) return
    e.preventDefault()
    send(input.files[0])
  })
  ;['dragenter', 'dragover'].forEach(function (type) {
    form.addEventListener(type, function (e) { e.preventDefault(); form.classList.add('over') })
  })
  form.addEventListener('dragleave', function (e) {
    // Leaving for one of the form's own children is not leaving the form.
    if (!form.contains(e.relatedTarget)) form.classList.remove('over')
  })
  form.addEventListener('drop', function (e) {
    e.preventDefault()
    form.classList.remove('over')
    var file = e.dataTransfer && e.dataTransfer.files[0]
    if (file) send(file)
  })
})

// A file dropped beside the drop zone would make the browser open it and leave the page.
if (document.querySelector('form[data-upload]')) {
  ;['dragover', 'drop'].forEach(function (type) {
    document.addEventListener(type, function (e) { e.preventDefault() })
  })
}
`

// A viewer that follows its canvas: a WebSocket to the canvas's Durable Object says when a new
// version lands (the frame then swaps to it, and a live region says so) or when access ends. A
// dropped socket reconnects with backoff, and the object tells a new socket the current version,
// so a version missed meanwhile is caught up.
const LIVE = `
(function () {
  var root = document.querySelector('[data-live]')
  if (!root || !window.WebSocket || !window.fetch) return
  var url = root.getAttribute('data-live')
  var shown = Number(root.getAttribute('data-version'))
  var follows = root.hasAttribute('data-follows')
  var frame = root.querySelector('iframe')
  var status = root.querySelector('[data-live-status]')
  var download = root.querySelector('[data-live-download]')
  var chip = root.querySelector('[data-live-version]')
  var picker = root.querySelector('select[name=v]')
  // A share link's page shows the link's expiry, which is never after its canvas's.
  var shared = /[?&]g=s\./.test(url)
  var GONE = {
    deleted: 'This canvas was deleted.',
    private: 'This canvas is no longer public.',
    revoked: 'This link was revoked.',
    expired: shared ? 'This link has expired.' : 'This canvas has expired.',
  }
  var CODES = { 4001: 'deleted', 4002: 'private', 4003: 'revoked', 4004: 'expired' }
  var delay = 1000
  var ended = false
  function say(text) { status.textContent = text }
  function end(reason) {
    ended = true
    say(GONE[reason] || 'This canvas is no longer available.')
  }
  function swap() {
    fetch(url.replace('?', '/frame?'), { headers: { Accept: 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : null })
      .then(function (next) {
        if (!next || next.version <= shown) return
        shown = next.version
        frame.src = next.src
        if (download) download.href = next.download
        if (chip) chip.textContent = 'v' + shown
        if (picker) {
          var option = document.createElement('option')
          option.value = String(shown)
          option.textContent = 'v' + shown
          picker.insertBefore(option, picker.firstChild)
          picker.value = String(shown)
        }
        say('Updated to v' + shown + '.')
      })
      .catch(function () {})
  }
  function connect() {
    var socket = new WebSocket(url.replace(/^http/, 'ws'))
    var pinger
    socket.onopen = function () {
      delay = 1000
      root.setAttribute('data-live-state', 'open')
      pinger = setInterval(function () { socket.send('ping') }, 30000)
    }
    socket.onmessage = function (e) {
      var event
      try { event = JSON.parse(e.data) } catch (err) { return }
      if (event.type === 'gone') end(event.reason)
      if (event.type !== 'version' || event.version <= shown) return
      if (follows) swap()
      else say('v' + event.version + ' is out: choose it above to see it.')
    }
    socket.onclose = function (e) {
      clearInterval(pinger)
      root.setAttribute('data-live-state', 'closed')
      if (CODES[e.code]) end(CODES[e.code])
      if (ended) return
      setTimeout(connect, delay)
      delay = Math.min(delay * 2, 60000)
    }
  }
  connect()
})()
`

export const APP_JS = [COPY, AUTO_SUBMIT, UPLOAD, LIVE].map((part) => part.trim()).join('\n')
