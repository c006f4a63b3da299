import type { Child } from 'hono/jsx'
import { isPdfFrame } from '../frame-content'
import { Layout } from './layout'

const SCRIPTED = 'allow-scripts allow-forms allow-popups allow-modals allow-downloads'
const STATIC = 'allow-popups allow-popups-to-escape-sandbox allow-downloads'

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
    facts: string[]
    downloadHref: string
    og: { title: string; type: string } | undefined
  },
) {
  return (
    <Layout title={props.title} main="wide" og={props.og}>
      <div class="viewer">
        <ViewerBar title={props.title}>
          {props.facts.map((fact) => (
            <span class="chip">{fact}</span>
          ))}
          <a class="btn" href={props.downloadHref}>
            Download
          </a>
        </ViewerBar>
        <ContentFrame {...props} />
      </div>
    </Layout>
  )
}
