import { defineCommand } from 'citty'
import { downloadTo, refuseOverwrite } from '../transfer'
import { usageError } from '../errors'
import { begin, globalArgs, positiveInt, printJson } from '../shared'

export default defineCommand({
  meta: { name: 'pull', description: 'Download the raw content of a canvas' },
  args: {
    ...globalArgs,
    id: { type: 'positional', required: true, description: 'Canvas id' },
    output: {
      type: 'string',
      alias: 'o',
      description: 'Write to this file, or - for stdout (the default; text only on a terminal)',
    },
    version: { type: 'string', description: 'A given version (default: the latest)' },
    force: { type: 'boolean', description: 'Overwrite an existing output file' },
  },
  async run({ args }) {
    const { api } = begin('pull', args)
    const version = positiveInt(args.version, 'version')
    const id = encodeURIComponent(args.id)
    const path = version ? `/v1/canvases/${id}/versions/${version}` : `/v1/canvases/${id}/content`
    // `-o -` is stdout, as the help says of the default and as `download -o -` does.
    const output = args.output === '-' ? null : (args.output ?? null)
    if (args.json && !output)
      throw usageError('--json prints to stdout: give -o <file> for the content')
    refuseOverwrite(output, Boolean(args.force))
    const url = await api.location(path, { query: { dl: 1 } })
    await downloadTo(url, output, Boolean(args.force), { textOnTerminal: args.output !== '-' })
    if (args.json) printJson({ canvas_id: args.id, version: version ?? null, path: output })
  },
})
