import type { TestProject } from 'vitest/node'
import { startIdentityProvider } from './identity-provider'
import { startReceiver } from './receiver'

// Global setup of the workers project: one webhook receiver (receiver.ts) and one identity
// provider (identity-provider.ts) for the whole run, their addresses handed to the tests
// (`inject('receiverUrl')`, `inject('identityProviderUrl')`).
export default async function setup(project: TestProject) {
  const [receiver, provider] = await Promise.all([startReceiver(), startIdentityProvider()])
  project.provide('receiverUrl', receiver.url)
  project.provide('identityProviderUrl', provider.url)
  return async () => {
    await Promise.all([receiver.stop(), provider.stop()])
  }
}

// As the workers tests see it (test/env.d.ts).
declare module 'vitest' {
  export interface ProvidedContext {
    receiverUrl: string
    identityProviderUrl: string
  }
}
