import { Layout } from './layout'

/** One sentence that says what Canvas is: the landing page's, and the login and signup pages'. */
export const WHAT_CANVAS_IS =
  'Canvas publishes your files as pages with a link: HTML, Markdown, charts, PDFs, code, whole ' +
  'folders as sites. Every version is kept, and open pages follow the latest as you push it.'

/**
 * What a visitor without a session meets at `/`: what Canvas is, what a canvas looks like (a
 * drawing of one, not anybody's content), and the way in.
 */
export function Landing(props: { signupOpen: boolean }) {
  return (
    <Layout title="Publish files as live pages">
      <section class="hero">
        <div class="hero-text">
          <h1>Publish a file. Get a link that stays live.</h1>
          <p class="lead">{WHAT_CANVAS_IS}</p>
          <div class="actions">
            {props.signupOpen && (
              <a class="btn primary" href="/signup">
                Create an account
              </a>
            )}
            <a class={props.signupOpen ? 'btn' : 'btn primary'} href="/login">
              Log in
            </a>
          </div>
          {!props.signupOpen && (
            <p class="hint">This server takes no new accounts: ask the person who runs it.</p>
          )}
        </div>
        <SampleCanvas />
      </section>
      <ul class="features" aria-label="What it does">
        <li>
          <h2>Drop it, it is online</h2>
          <p>
            Drop a file or a folder on the page and it opens as a canvas: rendered, sandboxed, at an
            address of its own.
          </p>
        </li>
        <li>
          <h2>Every version kept</h2>
          <p>
            Upload again and the canvas moves on; the versions before stay, side by side with the
            lines that changed.
          </p>
        </li>
        <li>
          <h2>Shared on your terms</h2>
          <p>
            Private until you say. Share links with an expiry, a password or a view limit, and
            revoke them at any time.
          </p>
        </li>
        <li>
          <h2>From a terminal or an agent</h2>
          <p>
            <code>svc push report.html</code> from the command line; an <a href="/docs">API</a> and
            an MCP server for agents.
          </p>
        </li>
      </ul>
    </Layout>
  )
}

/** A drawing of a canvas as its owner sees it: the bar, then a rendered report. */
function SampleCanvas() {
  return (
    <figure class="sample" aria-label="An example canvas: a quarterly report">
      <div class="sample-bar" aria-hidden="true">
        <span class="sample-dots">
          <i></i>
          <i></i>
          <i></i>
        </span>
        <b>quarterly-report.md</b>
        <span class="chip">v3</span>
        <span class="chip public">public</span>
      </div>
      <div class="sample-page">
        <p class="sample-h">Quarterly report</p>
        <p>
          Revenue grew <b>21%</b> over the quarter.
        </p>
        <table>
          <thead>
            <tr>
              <th>Region</th>
              <th>Q2</th>
              <th>Q3</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>Europe</td>
              <td>1.2M</td>
              <td>1.4M</td>
            </tr>
            <tr>
              <td>Americas</td>
              <td>2.1M</td>
              <td>2.5M</td>
            </tr>
          </tbody>
        </table>
        <div class="sample-chart" aria-hidden="true">
          <i class="h1"></i>
          <i class="h2"></i>
          <i class="h3"></i>
          <i class="h4"></i>
          <i class="h5"></i>
          <i class="h6"></i>
        </div>
      </div>
      <figcaption class="muted">An example: a Markdown report, its third version.</figcaption>
    </figure>
  )
}
