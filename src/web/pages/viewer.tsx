import type { Child } from 'hono/jsx'
import { isPdfFrame } from '../frame-content'
import { Layout } from './layout'

const SCRIPTED = 'allow-scripts allow-forms allow-popups allow-modals allow-downloads'
/** The sandbox of a frame rendered on the server, which runs no script. */
export const STATIC = 'allow-popups allow-popups-to-escape-sandbox allow-downloads'

export type FrameProps = { title: string; rendererId: string; ext: string; frameSrc: string }

/** The frame's sandbox; none for PDFs, whose response carries the sandbox instead (frames.ts). */
function sandboxFor(rendererId: string, ext: string): string | undefined {
  if (isPdfFrame(rendererId, ext)) return undefined
  return rendererId === 'html' ? SCRIPTED : STATIC
}

/** The content, in a sandboxed frame of its own origin (never allow-same-origin). */
export function ContentFrame(props: FrameProps) {
  return (
    <iframe
      src={props.frameSrc}
      title={props.title}
      sandbox={sandboxFor(props.rendererId, props.ext)}
      referrerpolicy="no-referrer"
    ></iframe>
  )
}

/** The title bar over the content: where it is from, what it is, and what one may do with it. */
export function ViewerBar(props: { title: string; children: Child }) {
  return (
    <div class="bar">
      <a href="/" class="muted">
        Canvas
      </a>
      <span class="title" title={props.title}>
        {props.title}
      </span>
      {props.children}
    </div>
  )
}

/**
 * What a visitor sees: a public canvas or a share link's content, with what the visitor may know
 * of it (its version; the link's expiry and views left) and its download. No owner's tools.
 */
export function Viewer(
  props: FrameProps & {
    version: number
    facts: string[]
    downloadHref: string
    og: { title: string; type: string } | undefined
    /** The page's live link, when it follows the canvas's latest version. */
    live?: string
  },
) {
  return (
    <Layout title={props.title} main="wide" og={props.og}>
      <div
        class="viewer"
        data-live={props.live}
        data-version={String(props.version)}
        data-follows={props.live ? true : undefined}
      >
        <ViewerBar title={props.title}>
          <span class="chip" data-live-version>
            v{props.version}
          </span>
          {props.facts.map((fact) => (
            <span class="chip">{fact}</span>
          ))}
          <a class="btn" href={props.downloadHref} data-live-download>
            Download
          </a>
        </ViewerBar>
        <LiveStatus />
        <ContentFrame {...props} />
      </div>
    </Layout>
  )
}

/** Where a live page says what changed (a new version, access ended); read out as it changes. */
export function LiveStatus() {
  return <p class="live-note" role="status" aria-live="polite" data-live-status></p>
}
