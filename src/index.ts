import { buildApp } from './app'
import type { Bindings } from './env'

const app = buildApp()

export default {
  fetch: app.fetch,
  async scheduled(_controller: ScheduledController, _env: Bindings, _ctx: ExecutionContext) {
    // The expiry sweep (CONTRACT 11) lands with the sharing issue; nothing to do until then.
  },
} satisfies ExportedHandler<Bindings>
