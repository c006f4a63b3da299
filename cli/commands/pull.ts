import { existsSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { defineCommand, type ParsedArgs } from 'citty'
import type { Api } from '../client'
import { CliError, usageError } from '../errors'
import { positiveInt } from '../flags'
import { begin, globalArgs, humanSize, note, printJson } from '../shared'
import { checkFolder, extractSite, readArchive } from '../site-pull'
import { downloadTo, refuseOverwrite, safeFileName, writeBody, type Limit } from '../transfer'
import type { CanvasDetail, Item, VersionItemList } from '../types'
import { archiveBound } from '../zip'

const args = {
  ...globalArgs,
  id: { type: 'positional', required: true, description: 'Canvas id' },
  output: {
    type: 'string',
    alias: 'o',
    description:
      'A file, or a folder for a site; - for stdout (the default: the main file, text only on a terminal)',
  },
  version: { type: 'string', description: 'A given version (default: the latest)' },
  zip: {
    type: 'boolean',
    description: 'Write the version as a zip of its files (default file: <title>-v<n>.zip)',
  },
  force: { type: 'boolean', description: 'Overwrite existing files' },
} as const

type PullArgs = ParsedArgs<typeof args>

export default defineCommand({
  meta: {
    name: 'pull',
    description: 'Download the raw content of a canvas (a site into a folder)',
  },
  args,
  async run({ args }) {
    const { api } = begin('pull', args)
    const version = positiveInt(args.version, 'version')
    // `-o -` is stdout, as the help says of the default and as `download -o -` does.
    const output = args.output === '-' ? null : (args.output ?? null)
    if (args.zip) return pullZip(api, args, version, output)
    if (args.json && !output) {
      throw usageError('--json prints to stdout: give -o <file> for the content')
    }
    const id = encodeURIComponent(args.id)
    // To stdout there is one file to give: a site's main one, as its content route serves it.
    if (!output) return pullFile(api, args, version, null)
    const canvas = await api.request<CanvasDetail>(`/v1/canvases/${id}`)
    if (version === undefined || version === canvas.version) {
      if (!canvas.items) return pullFile(api, args, version, output, canvas.version)
      return pullSite(api, args, canvas.version, output, canvas.items)
    }
    return pullOlder(api, args, version, output)
  },
})

/**
 * One file, streamed from its signed URL: a single-file version, or a site's main file. `latest`:
 * the version the canvas was found at, fetched by its number so that the file written is the
 * version said, even if another is pushed meanwhile.
 */
async function pullFile(
  api: Api,
  args: PullArgs,
  version: number | undefined,
  output: string | null,
  latest?: number,
) {
  const id = encodeURIComponent(args.id)
  const at = version ?? latest
  const path = at ? `/v1/canvases/${id}/versions/${at}` : `/v1/canvases/${id}/content`
  refuseOverwrite(output, Boolean(args.force))
  const url = await api.location(path, { query: { dl: 1 } })
  const options = { textOnTerminal: args.output !== '-' }
  const bytes = await downloadTo(url, output, Boolean(args.force), options)
  if (args.json) return printJson({ canvas_id: args.id, version: at ?? null, path: output })
  if (output) note(`wrote ${output} (${humanSize(bytes)}, version ${at})`)
}

/** A site's files under a folder, from its archive, each checked against the items listed. */
async function pullSite(api: Api, args: PullArgs, version: number, output: string, items: Item[]) {
  // Refused before the download, as a single file's pull is.
  checkFolder(
    output,
    items.map((item) => item.path),
    Boolean(args.force),
  )
  await withArchive(api, args.id, version, output, items, async (zip, entries) => {
    const force = Boolean(args.force)
    const written = await extractSite(zip, entries, output, { force, expected: items })
    reportSite(args, version, output, written)
  })
}

/** A version before the latest: a site when its files say so, else its one file as it is. */
async function pullOlder(api: Api, args: PullArgs, version: number, output: string) {
  const { items } = await api.request<VersionItemList>(itemsPath(args.id, version))
  if (items.length === 1) return pullFile(api, args, version, output)
  return pullSite(api, args, version, output, items)
}

/**
 * The version's archive saved for `use`, and removed afterwards: inside `output` when that is a
 * folder already (`-o .` must not need the parent folder writable), else beside it.
 */
async function withArchive(
  api: Api,
  id: string,
  version: number,
  output: string,
  items: Item[],
  use: (zip: string, entries: Awaited<ReturnType<typeof readArchive>>) => Promise<void>,
) {
  const target = resolve(output)
  const inside = existsSync(target) && statSync(target).isDirectory()
  const zip = inside ? join(target, `.svc-${process.pid}.zip`) : `${target}.svc-${process.pid}.zip`
  try {
    const response = await api.stream(archivePath(id, version))
    const total = items.reduce((sum, item) => sum + item.size, 0)
    await writeBody(response, zip, { total, limit: archiveLimit(version, items) })
    await use(zip, await readArchive(zip))
  } finally {
    rmSync(zip, { force: true })
  }
}

const archivePath = (id: string, version: number) =>
  `/v1/canvases/${encodeURIComponent(id)}/versions/${version}/archive`
const itemsPath = (id: string, version: number) =>
  `/v1/canvases/${encodeURIComponent(id)}/versions/${version}/items`

/** An archive holds the listed files and the zip's records, no more: past that it is stopped. */
function archiveLimit(version: number, items: { path: string; size: number }[]): Limit {
  const bytes = archiveBound(items)
  const files = `${items.length} file${items.length === 1 ? '' : 's'}`
  return {
    bytes,
    error: () =>
      new CliError(
        `the archive of version ${version} runs past the ${bytes} bytes its ${files} can take: stopped (the server sent more than it listed)`,
        'bad_response',
      ),
  }
}

function reportSite(
  args: PullArgs,
  version: number,
  output: string,
  written: { files: number; bytes: number },
) {
  if (args.json) return printJson({ canvas_id: args.id, version, path: output, ...written })
  const files = `${written.files} file${written.files === 1 ? '' : 's'}`
  note(`wrote ${files} (${humanSize(written.bytes)}, version ${version}) to ${output}`)
}

/** `--zip`: the archive as it comes, to a file named after the canvas unless `-o` says. */
async function pullZip(
  api: Api,
  args: PullArgs,
  version: number | undefined,
  output: string | null,
) {
  if (args.json && args.output === '-') {
    throw usageError('--json prints to stdout: give -o <file> for the archive')
  }
  let at = version
  let file = output
  if (at === undefined || args.output === undefined) {
    const canvas = await api.request<CanvasDetail>(`/v1/canvases/${encodeURIComponent(args.id)}`)
    at ??= canvas.version
    if (args.output === undefined) file = safeFileName(`${canvas.title}-v${at}`, 'zip')
  }
  refuseOverwrite(file, Boolean(args.force))
  // The version's files, to know how large its archive can be.
  const { items } = await api.request<VersionItemList>(itemsPath(args.id, at))
  const response = await api.stream(archivePath(args.id, at))
  const bytes = await writeBody(response, file, { limit: archiveLimit(at, items) })
  if (args.json) return printJson({ canvas_id: args.id, version: at, path: file })
  if (file) note(`wrote ${file} (${humanSize(bytes)}, version ${at})`)
}
