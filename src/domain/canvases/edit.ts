import { AppError } from '../../lib/errors'
import type { Canvas } from '../../schema/responses'
import { updateCanvas } from './canvases'
import { storeDirect } from '../files'
import { readStoredText } from './publish'
import { itemNotFound, latestVersionFiles } from './site-reads'
import { applyEdits, checkEdits, type TextEdit } from './text-edits'
import type { Services } from '../services'
import type { Actor } from '../actor'

// Editing a canvas in place: literal replacements in the text of its latest version (or of one
// file of a site), written as one new version that holds everything else as it was.

export type EditInput = {
  edits: TextEdit[]
  /** A site's file; the main file when left out. */
  path?: string
}

// Another version made between reading the text and writing the edited one refuses the write
// (`ifVersion`); the edits are then applied again, to the newer text, so that concurrent edits
// each land on the others instead of one silently undoing another. Each round one writer wins.
const ATTEMPTS = 8

export async function editCanvas(
  svc: Services,
  actor: Actor,
  canvasId: string,
  input: EditInput,
): Promise<Canvas> {
  checkEdits(input.edits)
  for (let attempt = 1; ; attempt++) {
    const latest = await latestVersionFiles(svc, actor, canvasId)
    const path = input.path ?? latest.main
    const target = latest.files.find((f) => f.path === path)
    if (!target) throw itemNotFound(path, latest.version)
    const what = input.path === undefined ? 'the content' : `path: '${path}'`
    const text = await editableText(svc, target.blobKey, what)
    const bytes = new TextEncoder().encode(applyEdits(text, input.edits))
    const limit = svc.settings.maxDirectUploadBytes
    if (bytes.byteLength > limit) {
      throw new AppError(
        'payload_too_large',
        `edits: the edited text would be ${bytes.byteLength} bytes, over the limit of ${limit}`,
      )
    }
    const file = await storeDirect(svc, actor, bytes.slice().buffer, target.mime)
    const items = latest.files.map((f) => ({
      path: f.path,
      file_id: f === target ? file.file_id : f.file_id,
    }))
    try {
      return await updateCanvas(svc, actor, canvasId, {
        items,
        main: latest.main,
        ifVersion: latest.version,
      })
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'conflict') || attempt === ATTEMPTS) throw err
    }
  }
}

/** The file's text, if it is text an edit may read and write back (the direct upload limit). */
async function editableText(svc: Services, blobKey: string, what: string): Promise<string> {
  const limit = svc.settings.maxDirectUploadBytes
  const read = await readStoredText(svc, blobKey, { limit, keepBom: true })
  if (read.kind === 'text') return read.text
  if (read.kind === 'too_large') {
    throw new AppError(
      'payload_too_large',
      `${what} is ${read.size} bytes, over the limit of ${limit} an edit may change; publish a new version instead`,
    )
  }
  throw new AppError(
    'invalid_request',
    `${what} is binary, and only text can be edited; publish a new version instead`,
  )
}
