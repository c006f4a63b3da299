import type { Share } from '../../schema/responses'
import type { Flash } from '../flash'
import { encodePath } from '../frames/links'
import { Action } from '../pages/action'
import { FileList, type FileRow } from './file-list'
import { Layout, type User } from '../pages/layout'
import { flashAt, flashTop, Notice } from '../pages/notice'
import { ago, calendar, relative } from '../../lib/time'
import { ShareDialog, ShareVersions, type ShareDraft } from './share-dialog'
import { ShareList } from './share-list'
import { ReadersPanel, type ReadersPanelProps } from './readers-panel'
import { UploadForm } from '../pages/upload-form'
import { VersionList, type VersionRow } from './version-list'
import { LiveStatus, Stage, ViewerBar, type Fact, type FrameProps } from '../pages/viewer'
import { CommentsButton, type CommentsProps } from './comments-panel'
import { ReviewsSection, type ReviewsProps } from './reviews'

export type OwnedCanvas = {
  canvas_id: string
  title: string
  visibility: string
  version: number
  expires_at: string | null
}

/** Everything the parts of the owner's page that follow the canvas's versions are made of. */
export type VersionParts = {
  canvas: OwnedCanvas
  shown: number
  versions: VersionRow[]
  textual: boolean
  /** The shown version's files, when it is a site. */
  site?: { files: FileRow[]; main: string; base: string }
}

/**
 * The owner's page of a canvas: the content, filling the window below the bars, with Share and
 * the owner's actions in the bar over it (on a phone, all in its menu); then who it is shared
 * with, its files, a new version, and its versions and their changes.
 */
export function CanvasPage(
  props: FrameProps &
    VersionParts & {
      user: User
      csrf: string
      shares: Share[]
      origin: string
      flash?: Flash
      shareDraft?: ShareDraft
      /** The new link's form shown open (`?share=new`, the Readers page's "Share again"). */
      shareOpen?: boolean
      limits: { direct: number; file: number; siteItems: number }
      /** The page's live link: new versions and an end of access reach it as they happen. */
      live: string
      comments: CommentsProps
      /** Who published it. */
      author: { user_id: string; name: string }
      /** What the person may do, by their role (web/needs.ts): a viewer is shown no change. */
      can: { change: boolean }
      reviews: ReviewsProps
      /** Its views of the week, for the Readers panel. */
      readers: Omit<ReadersPanelProps, 'canvasId'>
      /** The workspace shows its links' readers approved versions only. */
      requireReview: boolean
    },
) {
  const { canvas, csrf, flash, can } = props
  const id = canvas.canvas_id
  const facts: Fact[] = [
    { text: `by ${props.author.name}`, title: `Published by ${props.author.name}` },
    { text: canvas.visibility, class: canvas.visibility },
    canvas.expires_at
      ? { text: `expires ${relative(canvas.expires_at)}`, title: calendar(canvas.expires_at) }
      : { text: 'permanent' },
  ]
  const follows = props.shown === canvas.version
  return (
    <Layout title={canvas.title} user={props.user} csrf={csrf} main="wide" header>
      <div class="owner">
        <div
          class="viewer"
          data-live={props.live}
          data-version={String(props.shown)}
          data-follows={follows ? true : undefined}
          data-latest={String(canvas.version)}
          data-parts={follows ? `/c/${id}/parts` : `/c/${id}/parts?v=${props.shown}`}
        >
          <ViewerBar
            title={canvas.title}
            facts={facts}
            fullHref={follows ? `/c/${id}/full` : `/c/${id}/full?v=${props.shown}`}
            downloadHref={`/c/${id}/download?v=${props.shown}`}
            owner={
              can.change
                ? { shareHref: '#share', actions: <OwnerActions canvas={canvas} csrf={csrf} /> }
                : undefined
            }
          >
            <form method="get" action={`/c/${id}`}>
              <VersionPicker {...props} />
              <button type="submit" data-without-js>
                Show
              </button>
            </form>
            <CommentsButton count={props.comments.comments.length} />
          </ViewerBar>
          <LiveStatus />
          {/* The bar's actions answer here, under the bar they were chosen in. */}
          <Notice flash={flashTop(flash, ['share'])} />
          <Stage frame={props} comments={props.comments} />
        </div>
        <div class="details">
          {can.change && (
            <>
              {/* Not focusable: the page opened at #share gives the focus to its message. */}
              <h2 id="share">Share links</h2>
              <Notice flash={flashAt(flash, 'share')} />
              <ShareList
                canvasId={id}
                shares={props.shares}
                origin={props.origin}
                csrf={csrf}
                now={{
                  latest: canvas.version,
                  approved: props.reviews.approvedVersion,
                  requireReview: props.requireReview,
                }}
              />
              <ShareDialog
                canvasId={id}
                csrf={csrf}
                versions={props.versions.map((v) => v.version)}
                draft={props.shareDraft}
                open={props.shares.length === 0 || Boolean(props.shareOpen)}
                canvasExpiresAt={canvas.expires_at}
              />
            </>
          )}
          <ReviewsSection {...props.reviews} />
          <ReadersPanel canvasId={id} {...props.readers} />
          <SiteFiles {...props} />
          {can.change && (
            <>
              <h2>New version</h2>
              <UploadForm
                csrf={csrf}
                canvasId={id}
                directLimit={props.limits.direct}
                fileLimit={props.limits.file}
                siteItems={props.limits.siteItems}
              />
            </>
          )}
          <Versions {...props} />
        </div>
      </div>
    </Layout>
  )
}

/** The owner's actions on the canvas, for the menu of its bar. */
function OwnerActions(props: { canvas: OwnedCanvas; csrf: string }) {
  const { canvas, csrf } = props
  const id = canvas.canvas_id
  const makeVisible = canvas.visibility === 'public' ? 'private' : 'public'
  return (
    <>
      {canvas.expires_at && (
        <Action csrf={csrf} action={`/c/${id}/permanent`} label="Make permanent" />
      )}
      <Action
        csrf={csrf}
        action={`/c/${id}/visibility`}
        label={`Make ${makeVisible}`}
        fields={{ visibility: makeVisible }}
      />
      <a class="btn" href={`/c/${id}/review`}>
        Request review…
      </a>
      <a class="btn danger" href={`/c/${id}/delete`}>
        Delete…
      </a>
    </>
  )
}

/**
 * The parts of the owner's page that name versions, alone: the page's script fetches them when a
 * new version lands and puts each in place of its namesake (`data-live-part`).
 */
export function VersionParts(props: VersionParts) {
  return (
    <div>
      <VersionPicker {...props} />
      <SiteFiles {...props} />
      <Versions {...props} />
      <ShareVersions versions={props.versions.map((v) => v.version)} />
    </div>
  )
}

function VersionPicker(props: VersionParts) {
  return (
    <select name="v" aria-label="Version shown" data-autosubmit data-live-part="picker">
      {props.versions.map((v) => (
        <option value={String(v.version)} selected={v.version === props.shown}>
          v{v.version} · {ago(v.created_at)}
        </option>
      ))}
      {!props.versions.some((v) => v.version === props.shown) && (
        <option value={String(props.shown)} selected>
          v{props.shown}
        </option>
      )}
    </select>
  )
}

function SiteFiles({ site }: VersionParts) {
  return (
    <div data-live-part="files">
      {site && (
        <>
          <h2 id="files">Files</h2>
          <FileList
            files={site.files}
            main={site.main}
            siteUrl={(path) => site.base + encodePath(path)}
          />
        </>
      )}
    </div>
  )
}

function Versions(props: VersionParts) {
  return (
    <section data-live-part="versions" aria-labelledby="versions">
      <h2 id="versions">Versions</h2>
      <VersionList
        canvasId={props.canvas.canvas_id}
        versions={props.versions}
        current={props.canvas.version}
        shown={props.shown}
        textual={props.textual}
      />
    </section>
  )
}
