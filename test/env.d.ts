import type { Bindings } from '../src/lib/settings'

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: import('cloudflare:test').D1Migration[]
      API_LIMITER_SMALL: RateLimit
      AUTH_LIMITER_SMALL: RateLimit
    }
  }
}
