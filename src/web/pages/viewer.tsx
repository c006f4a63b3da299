import { isPdfFrame } from '../frame-content'
import { Csrf, Layout } from './layout'

const SCRIPTED = 'allow-scripts allow-forms allow-popups allow-modals allow-downloads'
const STATIC = 'allow-popups allow-popups-to-escape-sandbox allow-downloads'

type ViewerProps = {
  title: string
  rendererId: string
  ext: string
  frameSrc: string
  version: number
  versions?: { version: number; created_at: string }[]
  canvasId?: string
  downloadHref: string
  owner?: { csrf: string }
  shareUrl?: string
  og: { title: string; type: string } | undefined
}

/** The frame's sandbox; none for PDFs, whose response carries the sandbox instead (frames.ts). */
function sandboxFor(rendererId: string, ext: string): string | undefined {
  if (isPdfFrame(rendererId, ext)) return undefined
  return rendererId === 'html' ? SCRIPTED : STATIC
}

/** The viewer: a title bar and the content in a sandboxed frame (never allow-same-origin). */
export function Viewer(props: ViewerProps) {
  return (
    <Layout title={props.title} main="wide" og={props.og}>
      <div class="viewer">
        <div class="bar">
          <a href="/" class="muted">
            Canvas
          </a>
          <span class="title" title={props.title}>
            {props.title}
          </span>
          {props.versions && props.canvasId && (
            <form method="get" action={`/c/${props.canvasId}`}>
              <select name="v" aria-label="Version">
                {props.versions.map((v) => (
                  <option value={String(v.version)} selected={v.version === props.version}>
                    v{v.version} · {v.created_at.slice(0, 16).replace('T', ' ')}
                  </option>
                ))}
              </select>
              <button type="submit">Show</button>
            </form>
          )}
          <a class="btn" href={props.downloadHref}>
            Download
          </a>
          {props.owner && props.canvasId && (
            <form method="post" action={`/c/${props.canvasId}/share`}>
              <Csrf token={props.owner.csrf} />
              <input type="hidden" name="back" value="viewer" />
              <button type="submit">Share</button>
            </form>
          )}
        </div>
        {props.shareUrl && (
          <div class="success banner" role="status">
            Share link: <code id="share-url">{props.shareUrl}</code>{' '}
            <button type="button" data-copy="share-url">
              Copy
            </button>
          </div>
        )}
        <iframe
          src={props.frameSrc}
          title={props.title}
          sandbox={sandboxFor(props.rendererId, props.ext)}
          referrerpolicy="no-referrer"
        ></iframe>
      </div>
    </Layout>
  )
}
