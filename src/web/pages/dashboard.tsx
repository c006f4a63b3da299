import { InstallCli, type CliInstall } from './install-cli'
import { formatSize } from '../../lib/format'
import type { Flash } from '../flash'
import { Action } from './action'
import { Layout, type User } from './layout'
import { ListTable } from './list-table'
import { flashAt, flashTop, Notice } from './notice'
import { calendar, relative } from '../../lib/time'
import { Ago } from './when'
import { UploadForm } from './upload-form'
import { lifeWords } from '../teams/settings-section'
import { MAX_QUERY_LENGTH } from '../../domain/search/query'
import { snippetParts } from '../../lib/search'

export type DashboardCanvas = {
  canvas_id: string
  title: string
  /** Who published it. */
  author: { user_id: string; name: string }
  ext: string
  visibility: string
  version: number
  size: number
  updated_at: string
  expires_at: string | null
  /** Its views of the last 7 days; absent when the service counts no reads. */
  week_views?: number
  /** A search's match: the canvas's text around the words found, and where they lie in it. */
  snippet?: string
  highlights?: [number, number][]
}

/** What happens to a canvas published here, by the workspace's setting; admins may change it. */
function NewCanvasLife(props: { life: string | null; user: User }) {
  const role = props.user.workspace?.role
  const admin = role === 'admin' || role === 'owner'
  return (
    <p class="hint" id="new-canvas-life">
      {props.life === null
        ? 'New canvases here are kept until deleted.'
        : `New canvases here expire after ${lifeWords(props.life)} unless made permanent.`}
      {admin && (
        <>
          {' '}
          <a href="/settings/members#settings">Change for this workspace</a>
        </>
      )}
    </p>
  )
}

export type DashboardFilters = {
  search?: string
  ext?: string
  visibility?: string
  /** Who published them: `me`, a member's email or user id. */
  author?: string
}

/** What the person may do here, by their role (web/needs.ts): only those controls are shown. */
export type DashboardCan = { publish: boolean; change: boolean }

type Props = {
  /** This deployment's address, for the line that installs its CLI. */
  cli: CliInstall
  user: User
  csrf: string
  canvases: DashboardCanvas[]
  filters: DashboardFilters
  can: DashboardCan
  page: number
  hasMore: boolean
  /** Why the words searched for are not a search. */
  searchError?: string
  /** How long a new canvas of the workspace lives, as the API writes it; null: kept. */
  newCanvasLife: string | null
  /** The reviews waiting for this person's decision, by canvas. */
  awaiting: Map<string, Awaiting>
  flash?: Flash
  limits: { direct: number; file: number; siteItems: number }
}

/** /: the workspace's canvases, found by words, type, author and visibility; and the upload. */
export function Dashboard(props: Props) {
  const { csrf, filters, flash, can } = props
  // A message about one canvas shows on its row, where the redirect's fragment lands.
  const rows = props.canvases.map((c) => `canvas-${c.canvas_id}`)
  const filtered = Boolean(filters.search || filters.ext || filters.visibility || filters.author)
  return (
    <Layout title="Canvases" user={props.user} csrf={csrf}>
      <h1>Canvases</h1>
      <Notice flash={flashTop(flash, rows)} />
      {can.publish ? (
        <UploadForm
          csrf={csrf}
          directLimit={props.limits.direct}
          fileLimit={props.limits.file}
          siteItems={props.limits.siteItems}
          pageDrop
        >
          <NewCanvasLife life={props.newCanvasLife} user={props.user} />
        </UploadForm>
      ) : (
        <ViewerNote user={props.user} />
      )}
      <AwaitingReview awaiting={props.awaiting} />
      <Filters filters={filters} filtered={filtered} />
      <Listing {...props} filtered={filtered} />
      <Pager page={props.page} hasMore={props.hasMore} filters={filters} />
    </Layout>
  )
}

/** The search and the filters, kept in the page's address. */
function Filters({ filters, filtered }: { filters: DashboardFilters; filtered: boolean }) {
  return (
    <form class="row filters" method="get" action="/" role="search">
      <div class="grow">
        <input
          name="q"
          type="search"
          placeholder="Search titles and text"
          value={filters.search ?? ''}
          aria-label="Search titles and text"
          maxlength={MAX_QUERY_LENGTH}
        />
      </div>
      <input
        name="type"
        placeholder="Type, e.g. html"
        value={filters.ext ?? ''}
        aria-label="Type"
        size={14}
      />
      <input
        name="author"
        placeholder="By: me, an email"
        value={filters.author ?? ''}
        aria-label="Published by (me, or a member's email)"
        size={16}
      />
      <select name="visibility" aria-label="Visibility">
        <option value="">Any visibility</option>
        <option value="private" selected={filters.visibility === 'private'}>
          Private
        </option>
        <option value="public" selected={filters.visibility === 'public'}>
          Public
        </option>
      </select>
      <button type="submit">Filter</button>
      {filtered && (
        <a class="btn" href="/">
          Clear
        </a>
      )}
    </form>
  )
}

/** The canvases found: a search's error, an empty list's words, or the table. */
function Listing(props: Props & { filtered: boolean }) {
  const { csrf, filters, flash, can, filtered } = props
  return (
    <>
      <p class="hint">
        {filters.search ? 'Best matches first' : 'Most recently changed first'}
        {props.canvases[0]?.week_views !== undefined ? '; views of the last 7 days.' : '.'}
      </p>
      {props.searchError ? (
        <div class="panel empty" role="alert">
          Search: {props.searchError}. Type words to find; "a phrase" in quotes; prefix* for words
          that start so.
        </div>
      ) : props.canvases.length === 0 ? (
        filtered ? (
          <div class="panel empty">No canvas matches these filters.</div>
        ) : (
          <div class="panel empty">
            <p>
              {can.publish
                ? 'No canvases yet. Drop a file above to publish it.'
                : 'No canvases yet: what the team publishes here shows up in this list.'}
            </p>
            <p>
              From a terminal: install this deployment’s <code>svc</code> command line tool and sign
              in. Agents can also use the <a href="/docs">API and MCP server</a>, with a key from{' '}
              <a href="/settings">Settings</a>.
            </p>
            <InstallCli {...props.cli} />
          </div>
        )
      ) : (
        <ListTable columns={columnsOf(props.canvases)} actions>
          {props.canvases.map((c) => (
            <CanvasRow
              canvas={c}
              csrf={csrf}
              change={can.change}
              flash={flashAt(flash, `canvas-${c.canvas_id}`)}
              awaiting={props.awaiting.get(c.canvas_id)}
            />
          ))}
        </ListTable>
      )}
    </>
  )
}

/** The list's columns: a week's views when the service counts reads. */
function columnsOf(canvases: DashboardCanvas[]) {
  // Short, so that the row's actions keep their line: the hint above the list says the period.
  const views = canvases[0]?.week_views !== undefined ? ['Views'] : []
  return ['Title', 'Author', 'Visibility', 'Version', ...views, 'Updated', 'Expires']
}

/** Newer and older pages, with the same filters. */
function Pager(props: { page: number; hasMore: boolean; filters: DashboardFilters }) {
  const { page, hasMore, filters } = props
  if (page <= 1 && !hasMore) return null
  const query = (to: number) => {
    const params = new URLSearchParams()
    if (filters.search) params.set('q', filters.search)
    if (filters.ext) params.set('type', filters.ext)
    if (filters.visibility) params.set('visibility', filters.visibility)
    if (filters.author) params.set('author', filters.author)
    if (to > 1) params.set('page', String(to))
    const text = params.toString()
    return text ? `/?${text}` : '/'
  }
  return (
    <nav class="pager" aria-label="Pages">
      <span>
        {page > 1 && (
          <a class="btn" href={query(page - 1)}>
            ← Newer
          </a>
        )}
      </span>
      <span>
        {hasMore && (
          <a class="btn" href={query(page + 1)}>
            Older →
          </a>
        )}
      </span>
    </nav>
  )
}

/** Why a viewer has no upload form, and how that changes. */
function ViewerNote(props: { user: User }) {
  const workspace = props.user.workspace
  return (
    <p class="panel hint" id="viewer-note">
      You are a <strong>viewer</strong> in{' '}
      <bdi dir="auto">{workspace?.name ?? 'this workspace'}</bdi>: you can read every canvas and
      comment on it. To publish here, ask one of its admins to make you an editor.
    </p>
  )
}

export type Awaiting = { reviewId: string; version: number; title: string }

/** The canvases whose review waits for the person: each a link to where they decide. */
function AwaitingReview(props: { awaiting: Map<string, Awaiting> }) {
  if (props.awaiting.size === 0) return null
  return (
    <section class="panel spaced" aria-labelledby="awaiting-review">
      <h2 id="awaiting-review">Waiting for your review</h2>
      <ul class="plain-list">
        {[...props.awaiting].map(([canvasId, a]) => (
          <li>
            <a href={`/c/${canvasId}#reviews`}>
              <bdi dir="auto">{a.title}</bdi>
            </a>{' '}
            · v{a.version}
          </li>
        ))}
      </ul>
    </section>
  )
}

function CanvasRow(props: {
  canvas: DashboardCanvas
  csrf: string
  change: boolean
  flash?: Flash
  awaiting?: Awaiting
}) {
  const { canvas: c, csrf } = props
  return (
    <>
      <tr id={`canvas-${c.canvas_id}`}>
        <td class="primary-cell">
          <div>
            <a class="title-link" href={`/c/${c.canvas_id}`}>
              {c.title}
            </a>
            {/* Type, size and id tell apart two canvases of the same name. */}
            <div class="sub">
              <span class="chip">{c.ext}</span> {formatSize(c.size)} · <code>{c.canvas_id}</code>
              {props.awaiting && (
                <>
                  {' '}
                  <a class="chip review" href={`/c/${c.canvas_id}#reviews`}>
                    your review of v{props.awaiting.version}
                  </a>
                </>
              )}
            </div>
            {c.snippet && <Snippet text={c.snippet} marks={c.highlights ?? []} />}
          </div>
        </td>
        <td data-label="Author">
          <a
            class="in-text cell-link"
            href={`/?author=${encodeURIComponent(c.author.user_id)}`}
            title={`Everything ${c.author.name} published here`}
          >
            <bdi dir="auto">{c.author.name}</bdi>
          </a>
        </td>
        <td data-label="Visibility">
          <span class={`chip ${c.visibility}`}>{c.visibility}</span>
        </td>
        <td data-label="Version">v{c.version}</td>
        {c.week_views !== undefined && (
          <td data-label="Views, 7 days">
            <a
              class="in-text cell-link"
              href={`/c/${c.canvas_id}/readers?days=7`}
              title={`Views of the last 7 days: who read ${c.title}`}
            >
              {c.week_views}
            </a>
          </td>
        )}
        <td data-label="Updated" class="nowrap">
          <Ago at={c.updated_at} />
        </td>
        <td data-label="Expires" class="nowrap">
          {c.expires_at ? (
            <span title={calendar(c.expires_at)}>{relative(c.expires_at)}</span>
          ) : (
            'never'
          )}
        </td>
        <td class="end">
          <div class="actions">
            <a class="btn small" href={`/c/${c.canvas_id}`}>
              Open
            </a>
            {props.change && <CanvasMenu canvas={c} csrf={csrf} />}
          </div>
        </td>
      </tr>
      {props.flash && (
        <tr class="row-notice">
          <td colspan={c.week_views === undefined ? 7 : 8}>
            <Notice flash={props.flash} />
          </td>
        </tr>
      )}
    </>
  )
}

/** What an editor may do to a canvas from the list. */
function CanvasMenu(props: { canvas: DashboardCanvas; csrf: string }) {
  const { canvas: c, csrf } = props
  const makeVisible = c.visibility === 'public' ? 'private' : 'public'
  return (
    <details class="menu">
      <summary class="btn small" aria-label={`More actions for ${c.title}`}>
        More ▾
      </summary>
      <div class="items">
        {/* On a phone the list is a sheet away from its row: it says which canvas. */}
        <p class="muted menu-title phone-only">{c.title}</p>
        {c.expires_at && (
          <Action
            csrf={csrf}
            action={`/c/${c.canvas_id}/permanent`}
            label="Make permanent"
            back="dashboard"
          />
        )}
        <Action
          csrf={csrf}
          action={`/c/${c.canvas_id}/visibility`}
          label={`Make ${makeVisible}`}
          fields={{ visibility: makeVisible }}
          back="dashboard"
        />
        <a class="btn" href={`/c/${c.canvas_id}#share`}>
          Share…
        </a>
        <a class="btn danger" href={`/c/${c.canvas_id}/delete`}>
          Delete…
        </a>
      </div>
    </details>
  )
}

/** A match's text with the words found marked. */
function Snippet(props: { text: string; marks: [number, number][] }) {
  const parts = snippetParts(props.text, props.marks)
  return <p class="snippet">{parts.map((p) => (p.found ? <mark>{p.text}</mark> : p.text))}</p>
}
