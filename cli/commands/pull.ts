import { existsSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { defineCommand, type ParsedArgs } from 'citty'
import type { Api } from '../client'
import { CliError, usageError } from '../errors'
import { positiveInt } from '../flags'
import { begin, globalArgs, humanSize, note, printJson } from '../shared'
import { checkFolder, extractFile, extractSite, readArchive } from '../site-pull'
import { downloadTo, refuseOverwrite, safeFileName, writeBody } from '../transfer'
import type { CanvasDetail, Item } from '../types'

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
      if (!canvas.items) return pullFile(api, args, version, output)
      return pullSite(api, args, canvas.version, output, canvas.items)
    }
    return pullOlder(api, args, version, output)
  },
})

/** One file, streamed from its signed URL: a single-file version, or a site's main file. */
async function pullFile(
  api: Api,
  args: PullArgs,
  version: number | undefined,
  output: string | null,
) {
  const id = encodeURIComponent(args.id)
  const path = version ? `/v1/canvases/${id}/versions/${version}` : `/v1/canvases/${id}/content`
  refuseOverwrite(output, Boolean(args.force))
  const url = await api.location(path, { query: { dl: 1 } })
  await downloadTo(url, output, Boolean(args.force), { textOnTerminal: args.output !== '-' })
  if (args.json) printJson({ canvas_id: args.id, version: version ?? null, path: output })
}

/** A site's files under a folder, from its archive, each checked against the items listed. */
async function pullSite(api: Api, args: PullArgs, version: number, output: string, items: Item[]) {
  const total = items.reduce((sum, item) => sum + item.size, 0)
  // Refused before the download, as a single file's pull is.
  checkFolder(
    output,
    items.map((item) => item.path),
    Boolean(args.force),
  )
  await withArchive(api, args.id, version, output, total, async (zip, entries) => {
    const force = Boolean(args.force)
    const written = await extractSite(zip, entries, output, { force, expected: items })
    reportSite(args, version, output, written)
  })
}

/**
 * A version before the latest: the API lists no items of it, so its archive says whether it is a
 * site (several files) or a single file (one).
 */
async function pullOlder(api: Api, args: PullArgs, version: number, output: string) {
  const force = Boolean(args.force)
  // A file in the way is refused before the download, whether the version is a site or not.
  if (existsSync(output) && !statSync(output).isDirectory()) refuseOverwrite(output, force)
  try {
    await withArchive(api, args.id, version, output, 0, async (zip, entries) => {
      if (entries.length > 1) {
        const written = await extractSite(zip, entries, output, { force })
        return reportSite(args, version, output, written)
      }
      refuseOverwrite(output, force)
      await extractFile(zip, entries[0], output, force)
      if (args.json) printJson({ canvas_id: args.id, version, path: output })
    })
  } catch (err) {
    // Too large for a zip: a single file of over 4 GiB, most likely, which its own route serves.
    if (!(err instanceof CliError) || err.code !== 'payload_too_large') throw err
    note(`version ${version} is too large for an archive: pulling its main file`)
    await pullFile(api, args, version, output)
  }
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
  total: number,
  use: (zip: string, entries: Awaited<ReturnType<typeof readArchive>>) => Promise<void>,
) {
  const target = resolve(output)
  const inside = existsSync(target) && statSync(target).isDirectory()
  const zip = inside ? join(target, `.svc-${process.pid}.zip`) : `${target}.svc-${process.pid}.zip`
  try {
    const response = await api.stream(archivePath(id, version))
    await writeBody(response, zip, total)
    await use(zip, await readArchive(zip))
  } finally {
    rmSync(zip, { force: true })
  }
}

const archivePath = (id: string, version: number) =>
  `/v1/canvases/${encodeURIComponent(id)}/versions/${version}/archive`

function reportSite(
  args: PullArgs,
  version: number,
  output: string,
  written: { files: number; bytes: number },
) {
  if (args.json) return printJson({ canvas_id: args.id, version, path: output, ...written })
  note(`wrote ${written.files} files (${humanSize(written.bytes)}) to ${output}`)
}

/** `--zip`: the archive as it comes, to a file named after the canvas unless `-o` says. */
async function pullZip(
  api: Api,
  args: PullArgs,
  version: number | undefined,
  output: string | null,
) {
  let at = version
  let file = output
  if (at === undefined || (file === null && args.output !== '-')) {
    const canvas = await api.request<CanvasDetail>(`/v1/canvases/${encodeURIComponent(args.id)}`)
    at ??= canvas.version
    if (args.output === undefined) file = safeFileName(`${canvas.title}-v${at}`, 'zip')
  }
  if (args.json && file === null) {
    throw usageError('--json prints to stdout: give -o <file> for the archive')
  }
  refuseOverwrite(file, Boolean(args.force))
  await writeBody(await api.stream(archivePath(args.id, at)), file)
  if (args.json) return printJson({ canvas_id: args.id, version: at, path: file })
  if (file) note(`saved ${file}`)
}
