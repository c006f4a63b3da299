import type { Child } from 'hono/jsx'
import { DRAWING_RENDERERS } from '../../render/registry'
import { isPdfFrame } from '../frames/content'
import { Layout } from './layout'
import { Logo } from './logo'
import {
  CommentsButton,
  CommentsPanel,
  openCount,
  type CommentsProps,
} from '../canvas/comments-panel'

const SCRIPTED = 'allow-scripts allow-forms allow-popups allow-modals allow-downloads'
/** The sandbox of a frame rendered on the server, which runs no script. */
export const STATIC = 'allow-popups allow-popups-to-escape-sandbox allow-downloads'

/**
 * A frame rendered on the server beside comments, or one that draws: its scripts are the comments
 * bridge and the deployment's drawing scripts, the only ones its Content-Security-Policy lets run
 * (frames/content.ts).
 */
const BRIDGED = `allow-scripts ${STATIC}`

export type FrameProps = {
  title: string
  rendererId: string
  ext: string
  frameSrc: string
  /** Shown beside comments: the frame may run its bridge to the page. */
  bridged?: boolean
}

/** The frame's sandbox; none for PDFs, whose response carries the sandbox instead (frames.ts). */
function sandboxFor(rendererId: string, ext: string, bridged: boolean): string | undefined {
  if (isPdfFrame(rendererId, ext)) return undefined
  if (rendererId === 'html') return SCRIPTED
  return bridged || DRAWING_RENDERERS.has(rendererId) ? BRIDGED : STATIC
}

/** The content, in a sandboxed frame of its own origin (never allow-same-origin). */
export function ContentFrame(props: FrameProps) {
  return (
    <iframe
      src={props.frameSrc}
      title={props.title}
      sandbox={sandboxFor(props.rendererId, props.ext, Boolean(props.bridged))}
      referrerpolicy="no-referrer"
    ></iframe>
  )
}

/** A fact about what is shown (visibility, expiry, views left), with its exact value on hover. */
export type Fact = { text: string; title?: string; class?: string }

/**
 * The title bar over the content: what it is, the controls one uses most (`children`), and the
 * rest (facts, the full-page view, the download), which on a phone fold into one menu so that the
 * bar stays one row. The owner's bar also has Share, and a menu of the owner's actions, which on
 * a phone holds every action of the page.
 */
export function ViewerBar(props: {
  title: string
  /** The app's mark and name, for pages without the app's header. */
  brand?: boolean
  facts: Fact[]
  fullHref: string
  downloadHref: string
  owner?: OwnerTools
  children?: Child
}) {
  const { facts, owner } = props
  return (
    <div class={owner ? 'bar owned' : 'bar'}>
      {props.brand && (
        <a href="/" class="brand" aria-label="Canvas">
          <Logo />
          <span class="wide-only">Canvas</span>
        </a>
      )}
      <Title title={props.title} />
      {props.children}
      {facts.map((fact) => (
        <span class={`chip wide-only fact ${fact.class ?? ''}`.trim()} title={fact.title}>
          {fact.text}
        </span>
      ))}
      {owner && (
        <a class="btn primary wide-only" href={owner.shareHref}>
          Share…
        </a>
      )}
      <a class="btn wide-only" href={props.fullHref} data-live-full>
        Full page
      </a>
      {!owner && (
        <a class="btn wide-only" href={props.downloadHref} data-live-download>
          Download
        </a>
      )}
      <details class={owner ? 'menu' : 'menu phone-only'}>
        <summary
          class="btn"
          aria-label={owner ? 'Actions on this canvas' : 'More about this canvas'}
        >
          ⋯
        </summary>
        <div class="items">
          {facts.length > 0 && <p class="muted facts">{facts.map((f) => f.text).join(' · ')}</p>}
          {owner && (
            <a class="btn phone-only" href={owner.shareHref}>
              Share…
            </a>
          )}
          {owner?.actions}
          <a class="btn phone-only" href={props.fullHref} data-live-full>
            Full page
          </a>
          <a class={owner ? 'btn' : 'btn phone-only'} href={props.downloadHref} data-live-download>
            Download
          </a>
        </div>
      </details>
    </div>
  )
}

/**
 * The title, cut in its middle when the bar is short of room, so that its end (the extension,
 * which says what kind of thing it is) stays in sight: "quarterly-re….md".
 */
function Title({ title }: { title: string }) {
  const ext = /\.[A-Za-z0-9]{1,10}$/.exec(title)?.[0]
  const stem = ext && ext.length < title.length ? title.slice(0, -ext.length) : undefined
  return (
    <span class="title" title={title}>
      {stem ? (
        <>
          <span class="stem">{stem}</span>
          <span class="ext">{ext}</span>
        </>
      ) : (
        <span class="stem">{title}</span>
      )}
    </span>
  )
}

/** What the owner's bar adds: where Share leads, and the owner's actions for its menu. */
export type OwnerTools = { shareHref: string; actions: Child }

/**
 * What a visitor sees: a public canvas or a share link's content, with what the visitor may know
 * of it (its version; the link's expiry and views left) and its download. No owner's tools.
 */
export function Viewer(
  props: FrameProps & {
    version: number
    facts: Fact[]
    downloadHref: string
    fullHref: string
    og: { title: string; type: string } | undefined
    /** The page's live link: it follows the canvas's latest version unless `pinned`. */
    live?: string
    pinned?: boolean
    /** The link's comments, when it allows them. */
    comments?: CommentsProps
  },
) {
  const { comments } = props
  return (
    <Layout title={props.title} main="wide" og={props.og}>
      <div
        class="viewer"
        data-live={props.live}
        data-version={String(props.version)}
        data-follows={props.live && !props.pinned ? true : undefined}
        data-pinned={props.pinned ? true : undefined}
      >
        <ViewerBar
          title={props.title}
          brand
          facts={props.facts}
          fullHref={props.fullHref}
          downloadHref={props.downloadHref}
        >
          <span class="chip" data-live-version>
            v{props.version}
          </span>
          {comments && <CommentsButton count={openCount(comments.comments)} />}
        </ViewerBar>
        <LiveStatus />
        <Stage frame={props} comments={comments} />
      </div>
    </Layout>
  )
}

/** The content, and its comments beside it when there are any to show. */
export function Stage(props: { frame: FrameProps; comments?: CommentsProps }) {
  if (!props.comments) return <ContentFrame {...props.frame} />
  return (
    <div class="stage">
      <ContentFrame {...props.frame} bridged />
      <CommentsPanel {...props.comments} />
    </div>
  )
}

/**
 * The content alone, filling the window: the full-page view of the owner's page and of a
 * visitor's. It follows new versions like the page it came from.
 */
export function FullView(
  props: FrameProps & {
    version: number
    og?: { title: string; type: string }
    live?: string
  },
) {
  return (
    <Layout title={props.title} main="wide" og={props.og}>
      <div
        class="viewer full"
        data-live={props.live}
        data-version={String(props.version)}
        data-follows={props.live ? true : undefined}
      >
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
