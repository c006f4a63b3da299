import type { VersionDiff } from '../../domain/diff'
import { Layout, type User } from './layout'

/** The changes between two versions of a text canvas, as the hunks of a unified diff. */
export function DiffPage(props: {
  user: User
  csrf: string
  canvas: { canvas_id: string; title: string }
  diff: VersionDiff
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
          <p class="muted">
            {diff.added} {diff.added === 1 ? 'line' : 'lines'} added, {diff.removed}{' '}
            {diff.removed === 1 ? 'line' : 'lines'} removed.
          </p>
          <div class="diff">
            {diff.hunks.map((hunk) => (
              <>
                <div class="gap">
                  <span>
                    Line {hunk.oldStart} of v{diff.from}, line {hunk.newStart} of v{diff.to}
                  </span>
                </div>
                {hunk.lines.map((line) => (
                  <div class={line.kind}>
                    <span>
                      <span class="sr-only">
                        {line.kind === 'add' ? 'added: ' : line.kind === 'del' ? 'removed: ' : ''}
                      </span>
                      <span aria-hidden="true">
                        {line.kind === 'add' ? '+ ' : line.kind === 'del' ? '- ' : '  '}
                      </span>
                      {line.text}
                    </span>
                  </div>
                ))}
              </>
            ))}
          </div>
        </>
      )}
    </Layout>
  )
}
