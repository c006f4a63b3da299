import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestProject } from 'vitest/node'
import { buildCli } from './cli'
import { startDevServer, type DevServer } from './dev-server'

declare module 'vitest' {
  interface ProvidedContext {
    /** Where a test file asks for the shared dev server (see sharedDevServer). */
    devServerControl: string
  }
}

/**
 * Once per run of the node project: bundles the CLI (the files that spawn it run at the same time,
 * and one must not read dist/svc.mjs while another rewrites it), and holds the one `wrangler dev`
 * that the files without settings of their own share, each on an account and workspace of its own.
 * Webhooks may send to 127.0.0.1, where the files run their receivers. The server starts when a file first asks for it, so a run of files that need none starts none,
 * and it stops when the run ends, whether the tests passed or not.
 */
export default async function setup(project: TestProject) {
  buildCli()
  let server: Promise<DevServer> | undefined
  const control = createServer((req, res) => {
    server ??= startDevServer(['--var', 'SIGNUP:open', '--var', 'WEBHOOK_ALLOW_LOCAL:1'])
    server.then(
      (started) => {
        res.setHeader('Content-Type', 'application/json')
        res.end(JSON.stringify(req.url === '/output' ? started.output() : started.url))
      },
      (err: Error) => {
        res.statusCode = 500
        res.end(err.message)
      },
    )
  })
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve))
  const { port } = control.address() as AddressInfo
  project.provide('devServerControl', `http://127.0.0.1:${port}`)
  return async () => {
    control.closeAllConnections()
    control.close()
    const started = await server?.catch(() => undefined)
    await started?.stop()
  }
}
