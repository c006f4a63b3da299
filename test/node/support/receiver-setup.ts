import type { TestProject } from 'vitest/node'
import { startReceiver } from './receiver'

// Global setup of the workers project: one webhook receiver (receiver.ts) for the whole run, its
// address handed to the tests (`inject('receiverUrl')`).
export default async function setup(project: TestProject) {
  const receiver = await startReceiver()
  project.provide('receiverUrl', receiver.url)
  return receiver.stop
}

// As the workers tests see it (test/env.d.ts).
declare module 'vitest' {
  export interface ProvidedContext {
    receiverUrl: string
  }
}
