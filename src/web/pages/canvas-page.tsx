import type { Share } from '../../schema/responses'
import type { Flash } from '../flash'
import { encodePath } from '../frame-links'
import { Action } from './action'
import { FileList, type FileRow } from './file-list'
import { Layout, type User } from './layout'
import { Notice } from './notice'
import { relative } from '../../lib/time'
import { ShareDialog, type ShareDraft } from './share-dialog'
import { ShareList } from './share-list'
import { UploadForm } from './upload-form'
import { VersionList, type VersionRow } from './version-list'
import { ContentFrame, LiveStatus, ViewerBar, type FrameProps } from './viewer'

export type OwnedCanvas = {
  canvas_id: string
  title: string
  visibility: string
  version: number
  expires_at: string | null
}

/**
 * The owner's page of a canvas: the content, then everything to do with it: its state and
 * actions, a new version, its versions and their changes, and who it is shared with.
 */
export function CanvasPage(
  props: FrameProps & {
    user: User
    csrf: string
    canvas: OwnedCanvas
    shown: number
    versions: VersionRow[]
    textual: boolean
    shares: Share[]
    origin: string
    flash?: Flash
    shareDraft?: ShareDraft
    limits: { direct: number; file: number }
    /** The page's live link: new versions and an end of access reach it as they happen. */
    live: string
    /** The shown version's files, when it is a site. */
    site?: { files: FileRow[]; main: string; base: string }
  },
) {
  const { canvas, csrf } = props
  const id = canvas.canvas_id
  const makeVisible = canvas.visibility === 'public' ? 'private' : 'public'
  return (
    <Layout title={canvas.title} user={props.user} csrf={csrf} main="wide" header>
      <div class="owner">
        <div
          class="viewer"
          data-live={props.live}
          data-version={String(props.shown)}
          data-follows={props.shown === canvas.version ? true : undefined}
        >
          <ViewerBar title={canvas.title}>
            <form method="get" action={`/c/${id}`}>
              <select name="v" aria-label="Version shown" data-autosubmit>
                {props.versions.map((v) => (
                  <option value={String(v.version)} selected={v.version === props.shown}>
                    v{v.version} · {v.created_at.slice(0, 16).replace('T', ' ')}
                  </option>
                ))}
                {!props.versions.some((v) => v.version === props.shown) && (
                  <option value={String(props.shown)} selected>
                    v{props.shown}
                  </option>
                )}
              </select>
              <button type="submit" data-without-js>
                Show
              </button>
            </form>
            <span class={`chip ${canvas.visibility}`}>{canvas.visibility}</span>
            <span class="chip" title={canvas.expires_at ?? undefined}>
              {canvas.expires_at ? `expires ${relative(canvas.expires_at)}` : 'permanent'}
            </span>
            <a class="btn" href={`/c/${id}/download?v=${props.shown}`} data-live-download>
              Download
            </a>
          </ViewerBar>
          <LiveStatus />
          <ContentFrame {...props} />
        </div>
        <div class="details">
          <Notice flash={props.flash} />
          <div class="actions">
            {canvas.expires_at && (
              <Action csrf={csrf} action={`/c/${id}/permanent`} label="Make permanent" />
            )}
            <Action
              csrf={csrf}
              action={`/c/${id}/visibility`}
              label={`Make ${makeVisible}`}
              fields={{ visibility: makeVisible }}
            />
            <a class="btn" href="#share">
              Share…
            </a>
            <a class="btn danger" href={`/c/${id}/delete`}>
              Delete…
            </a>
          </div>
          {props.site && (
            <>
              <h2 id="files">Files</h2>
              <FileList
                files={props.site.files}
                main={props.site.main}
                siteUrl={(path) => props.site!.base + encodePath(path)}
              />
            </>
          )}
          <h2>New version</h2>
          <UploadForm
            csrf={csrf}
            canvasId={id}
            directLimit={props.limits.direct}
            fileLimit={props.limits.file}
          />
          <h2 id="versions">Versions</h2>
          <VersionList
            canvasId={id}
            versions={props.versions}
            current={canvas.version}
            shown={props.shown}
            textual={props.textual}
          />
          <h2 id="share">Share links</h2>
          <ShareList canvasId={id} shares={props.shares} origin={props.origin} csrf={csrf} />
          <ShareDialog
            canvasId={id}
            csrf={csrf}
            versions={props.versions.map((v) => v.version)}
            draft={props.shareDraft}
            open={props.shares.length === 0}
          />
        </div>
      </div>
    </Layout>
  )
}
