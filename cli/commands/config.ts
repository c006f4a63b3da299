import { defineCommand } from 'citty'
import { configPath, maskKey, normalizeUrl, readConfig, writeConfig, type Source } from '../config'
import { CliError } from '../errors'
import { begin, globalArgs, print, printJson } from '../shared'

const KEYS = ['endpoint', 'web_url'] as const

const show = defineCommand({
  meta: { name: 'show', description: 'Show the configuration in effect (the key masked)' },
  args: { ...globalArgs },
  async run({ args }) {
    const { settings } = begin('config show', args)
    if (args.json) {
      return printJson({
        config: configPath(),
        endpoint: settings.endpoint,
        web_url: settings.webUrl,
        api_key: maskKey(settings.apiKey),
      })
    }
    // The environment's values are named: they win over the file, which a person may not expect.
    const env = (source: Source) => (source.from === 'env' ? ` (${source.name})` : '')
    const { sources } = settings
    print(`config    ${configPath()}`)
    print(`endpoint  ${settings.endpoint}${env(sources.endpoint)}`)
    print(`web_url   ${settings.webUrl}${env(sources.webUrl)}`)
    print(`api_key   ${maskKey(settings.apiKey)}${env(sources.apiKey)}`)
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
