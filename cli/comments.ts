import { CliError } from './errors'

/**
 * A comment the service does not find on the canvas: said with the ids given and the way to see
 * the ones there are (a resolved one is not among those `svc comments` lists by default).
 */
export async function orNoComment<T>(canvasId: string, commentId: string, answer: Promise<T>) {
  try {
    return await answer
  } catch (err) {
    if (err instanceof CliError && err.code === 'comment_not_found') {
      throw new CliError(
        `canvas ${canvasId} has no comment ${commentId}; see svc comments ${canvasId} --status all`,
        err.code,
      )
    }
    throw err
  }
}
