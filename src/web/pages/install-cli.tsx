/**
 * The line that installs this deployment's own `svc` (GET /cli/svc.tgz: its default endpoint is
 * this deployment), with a copy button, and what to run next.
 */
export function InstallCli(props: { origin: string }) {
  return (
    <>
      <div class="copy-row">
        <code class="block" id="install-cli">
          npm install -g {props.origin}/cli/svc.tgz
        </code>
        <button type="button" data-copy="install-cli">
          Copy
        </button>
      </div>
      <p class="hint">
        Then <code>svc login</code>, which signs in through the browser, and{' '}
        <code>svc push report.html</code> (Node.js 20 or later).
      </p>
    </>
  )
}
