// The test pool's bindings beyond the Worker's own (worker-configuration.d.ts, from wrangler types).
declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: import('cloudflare:test').D1Migration[]
      API_LIMITER_SMALL: RateLimit
      AUTH_LIMITER_SMALL: RateLimit
      /** From the environment: test/support/runs.ts and test/support/hostile-check.ts. */
      PROPERTY_SCALE: string
      HOSTILE_RUNS: string
    }
  }
}

export {}
