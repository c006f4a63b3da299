// What goes wrong in an upload, said to a person: what happened, and whether trying again may help.
import { formatSize } from '../../src/lib/format'

/** A failure said to a person: what went wrong, and whether trying again may help. */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message)
  }
}

export const tooMany = (maxFiles: number) =>
  new UploadError(
    `This folder holds more than ${maxFiles} files, the most a site may have. Publish a part of it, or leave files out.`,
    false,
  )

export const tooLarge = (name: string, maxBytes: number) =>
  new UploadError(
    `${name} is over ${formatSize(maxBytes)}, the most a page can send: push it with svc instead.`,
    false,
  )

const REASONS: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

export const dropped = () =>
  new UploadError(
    'The connection to Canvas dropped before the upload finished. Check your connection, then retry.',
    true,
  )

export const serverFailed = (status: number) =>
  new UploadError(
    `Canvas could not take the upload just now: the server answered ${status}${REASONS[status] ? ` (${REASONS[status]})` : ''}. Nothing was published. Retry in a moment.`,
    true,
  )
