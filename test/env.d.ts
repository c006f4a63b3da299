// The test pool's bindings beyond the Worker's own (worker-configuration.d.ts, from wrangler types).
declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: import('cloudflare:test').D1Migration[]
      API_LIMITER_SMALL: RateLimit
      AUTH_LIMITER_SMALL: RateLimit
      /** A queue nobody consumes: retries scheduled by a consumer a test drives go there. */
      WEBHOOKS_UNCONSUMED: Queue
      /** From the environment: test/support/runs.ts and test/support/hostile-check.ts. */
      PROPERTY_SCALE: string
      HOSTILE_RUNS: string
    }
  }
}

// What the workers project's global setup starts (test/node/support/receiver-setup.ts).
declare module 'vitest' {
  export interface ProvidedContext {
    receiverUrl: string
    identityProviderUrl: string
  }
}

export {}
