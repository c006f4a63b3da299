import type { Child } from 'hono/jsx'
import { formatSize } from '../../lib/format'
import { Csrf } from './layout'

/**
 * Publishing a file, or a folder as a site: a new canvas, or with `canvasId` a new version of it.
 * Without JavaScript the form posts the file itself (up to `directLimit`). The script sends the
 * bytes straight to storage instead, with a progress bar; it takes files and folders dropped on
 * the form (on the whole page with `pageDrop`), says what was chosen, and opens the canvas made.
 */
// The script hashes a file whole (WebCrypto has no streaming digest), so it takes files up to
// this size; larger ones go with svc, which streams.
const BROWSER_LIMIT = 512 * 1024 * 1024

export function UploadForm(props: {
  csrf: string
  canvasId?: string
  directLimit: number
  fileLimit: number
  /** The most files a site may hold. */
  siteItems: number
  /** The whole page takes a drop (the dashboard): one target as large as the window. */
  pageDrop?: boolean
  /** More to know before publishing, under the limits. */
  children?: Child
}) {
  const newVersion = Boolean(props.canvasId)
  const label = newVersion ? 'Upload a new version' : 'Publish a file or a folder'
  const browserLimit = Math.min(props.fileLimit, BROWSER_LIMIT)
  return (
    <form
      class="drop"
      method="post"
      action="/upload"
      enctype="multipart/form-data"
      data-upload
      data-max-bytes={String(browserLimit)}
      data-max-files={String(props.siteItems)}
      data-page-drop={props.pageDrop ? true : undefined}
      aria-label={label}
    >
      <Csrf token={props.csrf} />
      {props.canvasId && <input type="hidden" name="canvas_id" value={props.canvasId} />}
      <div class="drop-head">
        <UploadIcon />
        <div>
          <p class="drop-title">
            {newVersion ? 'Drop a file or a folder here' : 'Drop a file or a folder to publish it'}
          </p>
          <p class="hint">
            {newVersion
              ? 'It becomes the next version; the ones before stay in the list below.'
              : 'HTML, Markdown, a chart, a diagram, a notebook, a PDF, code, images; a folder becomes a site.'}
          </p>
        </div>
      </div>
      <div class="actions">
        <input id="upload-file" class="file-input" name="file" type="file" required />
        <label class="btn" for="upload-file">
          Choose a file…
        </label>
        <input
          id="upload-folder"
          class="file-input"
          type="file"
          webkitdirectory
          multiple
          disabled
          data-folder-input
        />
        <label class="btn" for="upload-folder" hidden data-with-js>
          Choose a folder…
        </label>
        <span class="chosen" data-chosen>
          <span class="without-js-chosen">File chosen.</span>
        </span>
        <button class="primary" type="submit">
          {newVersion ? 'Upload' : 'Publish'}
        </button>
      </div>
      <div class="progress" hidden data-progress>
        <progress max={100} value={0} aria-label="Upload progress"></progress>
        <span class="muted" data-percent></span>
      </div>
      <p class="status" data-status role="status"></p>
      <div class="notice error upload-error" role="alert" hidden data-error>
        <p data-error-text></p>
        <p>
          <button type="button" data-retry hidden>
            Retry
          </button>
        </p>
      </div>
      <p class="hint">
        Up to {formatSize(browserLimit)} a file ({formatSize(props.directLimit)} without
        JavaScript), {props.siteItems} files a site
        {props.fileLimit > browserLimit && `; up to ${formatSize(props.fileLimit)} with svc`}.
      </p>
      {props.children}
      {props.pageDrop && (
        <div class="drop-overlay" aria-hidden="true">
          <div>
            <UploadIcon />
            <p>Drop to publish</p>
          </div>
        </div>
      )}
    </form>
  )
}

function UploadIcon() {
  return (
    <svg class="upload-icon" viewBox="0 0 24 24" width="32" height="32" aria-hidden="true">
      <path
        d="M12 15V4m0 0L7.5 8.5M12 4l4.5 4.5M5 14v4a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-4"
        fill="none"
        stroke="currentColor"
        stroke-width="1.8"
        stroke-linecap="round"
        stroke-linejoin="round"
      />
    </svg>
  )
}
