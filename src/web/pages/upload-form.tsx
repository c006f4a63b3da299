import { formatSize } from '../../lib/format'
import { Csrf } from './layout'

/**
 * Publishing a file: a new canvas, or with `canvasId` a new version of it. Without JavaScript the
 * form posts the file itself (up to `directLimit`); the script sends it straight to storage
 * instead, with the progress bar, and takes files dropped on the form.
 */
// The script hashes a file whole (WebCrypto has no streaming digest), so it takes files up to
// this size; larger ones go with svc, which streams.
const BROWSER_LIMIT = 512 * 1024 * 1024

export function UploadForm(props: {
  csrf: string
  canvasId?: string
  directLimit: number
  fileLimit: number
}) {
  const label = props.canvasId ? 'Upload a new version' : 'Publish a file'
  const browserLimit = Math.min(props.fileLimit, BROWSER_LIMIT)
  return (
    <form
      class="drop"
      method="post"
      action="/upload"
      enctype="multipart/form-data"
      data-upload
      data-max-bytes={String(browserLimit)}
      aria-label={label}
    >
      <Csrf token={props.csrf} />
      {props.canvasId && <input type="hidden" name="canvas_id" value={props.canvasId} />}
      <label for="upload-file">{label}</label>
      <div class="row">
        <div class="grow">
          <input id="upload-file" name="file" type="file" required />
        </div>
        <button class="primary" type="submit">
          {props.canvasId ? 'Upload' : 'Publish'}
        </button>
      </div>
      <p class="hint">
        Choose a file or drop one here: HTML, Markdown, a chart, a PDF, code, images, up to{' '}
        {formatSize(browserLimit)} ({formatSize(props.directLimit)} without JavaScript)
        {props.fileLimit > browserLimit && `; up to ${formatSize(props.fileLimit)} with svc`}.
      </p>
      <progress max={100} value={0} hidden aria-label="Upload progress"></progress>
      <p class="hint" data-status aria-live="polite"></p>
    </form>
  )
}
