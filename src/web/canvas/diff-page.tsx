import type { DiffHunk, DiffLine, Segment, VersionDiff } from '../../domain/diff/diff'
import { Layout, type User } from '../pages/layout'
import { STATIC } from '../pages/viewer'

// The changes between two versions: line numbers on both sides, the changed words of a changed
// line marked, side by side on a wide screen and unified on a narrow one. One markup serves both
// layouts (assets/diff.css): each place where lines changed is a block whose removed lines take
// the left column and added ones the right, so the n-th removed line sits beside the n-th added.
// A person can choose either layout, or, for Markdown and HTML, the rendered view: a content frame
// (web/frames/frames.ts), since it shows what the canvas holds.

export const DIFF_VIEWS = ['split', 'unified', 'rendered'] as const
export type DiffView = (typeof DIFF_VIEWS)[number]

export function DiffPage(props: {
  user: User
  csrf: string
  canvas: { canvas_id: string; title: string }
  diff: VersionDiff
  /** As asked; null: side by side or unified by the width of the screen. */
  view: DiffView | null
  /** The rendered view's frame, when it is the one shown. */
  renderedSrc: string | null
}) {
  const { canvas, diff } = props
  return (
    <Layout title={`Changes to ${canvas.title}`} user={props.user} csrf={props.csrf}>
      <div class="head">
        <h1>
          {canvas.title}: v{diff.from} → v{diff.to}
        </h1>
        <a class="btn" href={`/c/${canvas.canvas_id}#versions`}>
          Back to the canvas
        </a>
      </div>
      {diff.kind === 'not_comparable' ? (
        <div class="panel empty">These versions cannot be compared: {diff.reason}.</div>
      ) : diff.hunks.length === 0 ? (
        <div class="panel empty">No changes: the two versions hold the same text.</div>
      ) : (
        <>
          <div class="diff-bar">
            <p class="muted">
              {diff.added} {diff.added === 1 ? 'line' : 'lines'} added, {diff.removed}{' '}
              {diff.removed === 1 ? 'line' : 'lines'} removed.
            </p>
            <Views
              base={`/c/${canvas.canvas_id}/diff?from=${diff.from}&to=${diff.to}`}
              view={props.view}
              rendered={diff.rendered !== null}
            />
          </div>
          {props.view === 'rendered' && props.renderedSrc ? (
            <Rendered src={props.renderedSrc} title={`${canvas.title}, changes rendered`} />
          ) : (
            <>
              {props.view === 'rendered' && (
                <p class="notice">Only Markdown and HTML canvases have a rendered view.</p>
              )}
              <Lines diff={diff} view={props.view} />
            </>
          )}
        </>
      )}
    </Layout>
  )
}

/** Links to each view; with none chosen, the one the screen's width shows looks chosen. */
function Views(props: { base: string; view: DiffView | null; rendered: boolean }) {
  const link = (view: DiffView, label: string, auto: string) => {
    const current = props.view === view
    const classes = ['btn', 'small', current ? 'current' : props.view === null ? auto : '']
    return (
      <a
        class={classes.filter(Boolean).join(' ')}
        href={`${props.base}&view=${view}`}
        aria-current={current ? 'page' : undefined}
      >
        {label}
      </a>
    )
  }
  return (
    <nav class="actions diff-views" aria-label="How the changes are shown">
      {link('split', 'Side by side', 'when-wide')}
      {link('unified', 'Unified', 'when-narrow')}
      {props.rendered && link('rendered', 'Rendered', '')}
    </nav>
  )
}

function Rendered(props: { src: string; title: string }) {
  return (
    <div class="diff-rendered">
      <p class="muted">
        The new version, with <ins>added text</ins> and <del>removed text</del> marked.
      </p>
      <iframe
        src={props.src}
        title={props.title}
        sandbox={STATIC}
        referrerpolicy="no-referrer"
      ></iframe>
    </div>
  )
}

type Shown = Extract<VersionDiff, { kind: 'diff' }>

function Lines(props: { diff: Shown; view: DiffView | null }) {
  const { diff } = props
  const layout = props.view === 'split' || props.view === 'unified' ? props.view : 'auto'
  return (
    // Side by side on a narrow screen the lines scroll sideways: a keyboard reaches them too.
    <div class="diff-scroll" tabindex={0} role="region" aria-label="The changed lines">
      <div class={`diff-lines ${layout}`}>
        {diff.hunks.map((hunk) => (
          <section
            class="hunk"
            aria-label={`From line ${hunk.oldStart} of v${diff.from}, line ${hunk.newStart} of v${diff.to}`}
          >
            <div class="hunk-head">
              Line {hunk.oldStart} of v{diff.from}, line {hunk.newStart} of v{diff.to}
            </div>
            {groups(hunk).map((group) =>
              group.kind === 'same' ? (
                group.lines.map((line) => <Line line={line} />)
              ) : (
                <div class="block">
                  {group.lines.map((line) => (
                    <Line line={line} />
                  ))}
                </div>
              ),
            )}
          </section>
        ))}
      </div>
    </div>
  )
}

/** A hunk's lines as runs of kept lines and blocks of changed ones. */
function groups(hunk: DiffHunk) {
  const out: { kind: 'same' | 'change'; lines: DiffLine[] }[] = []
  for (const line of hunk.lines) {
    const kind = line.kind === 'same' ? 'same' : 'change'
    const last = out[out.length - 1]
    if (last?.kind === kind) last.lines.push(line)
    else out.push({ kind, lines: [line] })
  }
  return out
}

const SIGN = { add: '+', del: '−', same: ' ' }
const SAID = { add: 'added: ', del: 'removed: ', same: '' }

function Line({ line }: { line: DiffLine }) {
  const text = (
    <span class="text">
      {line.kind !== 'same' && <span class="sr-only">{SAID[line.kind]}</span>}
      <span class="sign" aria-hidden="true">
        {SIGN[line.kind]}
      </span>
      {line.parts ? (
        <Parts parts={line.parts} mark={line.kind === 'add' ? 'ins' : 'del'} />
      ) : (
        line.text
      )}
    </span>
  )
  return (
    <div class={`line ${line.kind}`}>
      {line.oldLine !== undefined && <span class="num old">{line.oldLine}</span>}
      {line.newLine !== undefined && <span class="num new">{line.newLine}</span>}
      {text}
      {line.kind === 'same' && (
        // The kept line again, for the right-hand side when side by side.
        <span class="text copy" aria-hidden="true">
          <span class="sign"> </span>
          {line.text}
        </span>
      )}
    </div>
  )
}

/** A changed line's text, the words that changed marked as added or removed. */
function Parts(props: { parts: Segment[]; mark: 'ins' | 'del' }) {
  return (
    <>
      {props.parts.map((part) =>
        !part.changed ? (
          part.text
        ) : props.mark === 'ins' ? (
          <ins>{part.text}</ins>
        ) : (
          <del>{part.text}</del>
        ),
      )}
    </>
  )
}
