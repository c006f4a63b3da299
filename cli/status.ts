import { defineCommand, type ArgsDef } from 'citty'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { sep } from 'node:path'
import { configPath, maskKey, type Settings, type Source } from './config'
import { CliError } from './errors'
import { columns } from './output'
import { begin, globalArgs, print, printJson } from './shared'
import type { Me } from './types'

// `svc status` and `svc whoami`: the endpoint, web URL and key in use, where each came from, and
// whether the key works there. What a person needs when a printed link is dead or a key refused.

const args = {
  ...globalArgs,
  endpoint: { type: 'string', description: 'Check this API address instead of the one in use' },
  'web-url': { type: 'string', description: 'Check with this web address instead' },
} as const satisfies ArgsDef

type Check = { me: Me; error: null } | { me: null; error: CliError }

/** The command, under either name; it fails (exit 1) after its report when the key does not work. */
export function statusCommand(name: string, description: string) {
  return defineCommand({
    meta: { name, description },
    args,
    async run({ args }) {
      const flags = { endpoint: args.endpoint, webUrl: args['web-url'] }
      const { settings, api } = begin(name, args, flags)
      const check: Check = await api.request<Me>('/v1/me').then(
        (me) => ({ me, error: null }),
        (err: unknown) => {
          if (!(err instanceof CliError)) throw err
          return { me: null, error: explained(err, settings) }
        },
      )
      if (args.json) printJson(statusJson(settings, check))
      else print(report(settings, check))
      if (check.error) throw check.error
    },
  })
}

/** The answer of `/v1/me` as whoami always printed it, then the settings and their sources. */
function statusJson(settings: Settings, { me, error }: Check) {
  const source = ({ from, name }: Source) => ({ from, name })
  return {
    user: me?.user ?? null,
    workspace: me?.workspace ?? null,
    key: me?.key ?? null,
    endpoint: settings.endpoint,
    web_url: settings.webUrl,
    api_key: maskKey(settings.apiKey),
    config: configPath(),
    sources: {
      endpoint: source(settings.sources.endpoint),
      web_url: source(settings.sources.webUrl),
      api_key: source(settings.sources.apiKey),
    },
    error: error && { code: error.code, message: error.message },
  }
}

function report(settings: Settings, { me }: Check) {
  const { sources } = settings
  const account = me
    ? [
        ['user', me.user.email],
        ['workspace', `${me.workspace.name} (${me.workspace.workspace_id})`],
        // Your role there, which bounds what the key may do (a deployment before teams: none).
        ...(me.workspace.role ? [['role', me.workspace.role]] : []),
        ['scopes', `${me.key.scopes.join(', ')} (key ${me.key.name})`],
      ]
    : []
  const path = configPath()
  return columns([
    ...account,
    ['endpoint', settings.endpoint, origin(sources.endpoint)],
    ['web URL', settings.webUrl, origin(sources.webUrl)],
    ['API key', maskKey(settings.apiKey), origin(sources.apiKey)],
    ['config', home(path), existsSync(path) ? '' : '(no file yet)'],
  ])
}

/** A path under the home folder as people write it: `~/.svc/config.json`. */
function home(path: string): string {
  const dir = homedir()
  return path.startsWith(dir + sep) ? `~${path.slice(dir.length)}` : path
}

/** Where a value came from, in words. */
function origin(source: Source): string {
  switch (source.from) {
    case 'flag':
    case 'env':
      return `from ${source.name}`
    case 'config':
      return `from ${home(source.name!)}`
    case 'default':
      return 'the default'
    case 'endpoint':
      return `same as the endpoint${source.detail ? ` (${source.detail})` : ''}`
    case 'none':
      return 'not set'
  }
}

/** A failed check, said with what it means here: which endpoint refused, or was not Canvas. */
export function explained(
  err: CliError,
  settings: Pick<Settings, 'endpoint' | 'apiKey'>,
): CliError {
  const { endpoint, apiKey } = settings
  if (err.code === 'unauthorized' && apiKey) {
    return new CliError(`${endpoint} refused the key: ${err.message}`, err.code)
  }
  if (err.code === 'bad_response')
    return new CliError(`${err.message}: is it a Canvas API?`, err.code)
  if (err.code.startsWith('http_')) {
    return new CliError(`${endpoint} answered ${err.message}: is it a Canvas API?`, err.code)
  }
  return err
}
