import { createInterface } from 'node:readline'
import { CliError, usageError } from './errors'
import { visible } from './output'

/** One line from the terminal; `hidden` echoes nothing (for secrets). */
export function ask(asked: string, options: { hidden?: boolean } = {}): Promise<string> {
  // A question may name what the person typed (an id): shown, never acted on by the terminal.
  const question = visible(asked)
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
    if (options.hidden) {
      const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput
      ;(rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
        if (s.startsWith(question)) write.call(rl, question)
      }
    }
    let answered = false
    rl.question(question, (answer) => {
      answered = true
      if (options.hidden) process.stderr.write('\n')
      rl.close()
      resolve(answer.trim())
    })
    // Ctrl-C or Ctrl-D is no answer: nothing may go ahead, and the exit code must say so.
    rl.on('SIGINT', () => rl.close())
    rl.on('close', () => {
      if (!answered) {
        process.stderr.write('\n')
        reject(new CliError('cancelled', 'cancelled'))
      }
    })
  })
}

/**
 * A yes from the person at the terminal before what cannot be undone; a script (no terminal) must
 * have said it with --yes, else it is a mistake in the command line.
 */
export async function confirm(question: string, action: string, refused: string) {
  if (!process.stdin.isTTY) {
    throw usageError(`refusing to ${action} without confirmation: give --yes`)
  }
  const answer = await ask(`${question} [y/N] `)
  if (!/^y(es)?$/i.test(answer)) throw new CliError(refused, 'cancelled')
}
