import { defineCommand } from 'citty'
import {
  configPath,
  maskKey,
  normalizeUrl,
  readConfig,
  resolveSettings,
  writeConfig,
} from '../config'
import { CliError } from '../errors'
import { begin, globalArgs, print, printJson } from '../shared'

const KEYS = ['endpoint', 'web_url'] as const

const show = defineCommand({
  meta: { name: 'show', description: 'Show the configuration in effect (the key masked)' },
  args: { ...globalArgs },
  async run({ args }) {
    begin('config show', args)
    const settings = resolveSettings()
    if (args.json) {
      return printJson({
        config: configPath(),
        endpoint: settings.endpoint,
        web_url: settings.webUrl,
        api_key: maskKey(settings.apiKey),
      })
    }
    print(`config    ${configPath()}`)
    print(
      `endpoint  ${settings.endpoint}${process.env.CANVAS_ENDPOINT ? ' (CANVAS_ENDPOINT)' : ''}`,
    )
    print(`web_url   ${settings.webUrl}${process.env.CANVAS_WEB_URL ? ' (CANVAS_WEB_URL)' : ''}`)
    print(
      `api_key   ${maskKey(settings.apiKey)}${process.env.CANVAS_API_KEY ? ' (CANVAS_API_KEY)' : ''}`,
    )
  },
})

const set = defineCommand({
  meta: { name: 'set', description: 'Set endpoint or web_url' },
  args: {
    ...globalArgs,
    key: { type: 'positional', required: true, description: 'Endpoint or web_url' },
    value: { type: 'positional', required: true, description: 'An http(s) URL' },
  },
  async run({ args }) {
    begin('config set', args)
    if (!(KEYS as readonly string[]).includes(args.key)) {
      throw new CliError(`unknown key '${args.key}': use endpoint or web_url`, 'usage')
    }
    const value = normalizeUrl(args.value, args.key)
    writeConfig({ ...readConfig(), [args.key]: value })
    if (args.json) return printJson({ [args.key]: value })
    print(`${args.key} = ${value}`)
  },
})

export default defineCommand({
  meta: { name: 'config', description: 'Show or change the configuration' },
  subCommands: { show, set },
})
