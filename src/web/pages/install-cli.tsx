/** Where the CLI package is served, and whether it names that address as its default endpoint. */
export type CliInstall = { origin: string; named: boolean }

/**
 * The line that installs this deployment's own `svc` (GET /cli/svc.tgz), with a copy button, and
 * what to run next: `svc login`, with the address when the package cannot name it.
 */
export function InstallCli(props: CliInstall) {
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
        Then <code>{props.named ? 'svc login' : `svc login --endpoint ${props.origin}`}</code>,
        which signs in through the browser, and <code>svc push report.html</code> (Node.js 20 or
        later).
      </p>
    </>
  )
}
