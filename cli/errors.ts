/** The CLI's one error: printed as `error: <message> (<code>)`; exit 2 for `usage`, else 1. */
export class CliError extends Error {
  readonly code: string

  constructor(message: string, code: string) {
    super(message)
    this.code = code
  }
}

export const usageError = (message: string) => new CliError(message, 'usage')
