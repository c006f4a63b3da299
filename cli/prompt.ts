import { createInterface } from 'node:readline'

/** One line from the terminal; `hidden` echoes nothing (for secrets). */
export function ask(question: string, options: { hidden?: boolean } = {}): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
    if (options.hidden) {
      const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput
      ;(rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
        if (s.startsWith(question)) write.call(rl, question)
      }
    }
    rl.question(question, (answer) => {
      if (options.hidden) process.stderr.write('\n')
      rl.close()
      resolve(answer.trim())
    })
  })
}
