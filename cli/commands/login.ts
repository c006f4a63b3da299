import { defineCommand } from 'citty'
import { Api } from '../client'
import { DEFAULT_URL, normalizeUrl, readConfig, resolveSettings, writeConfig } from '../config'
import { CliError } from '../errors'
import { globalArgs, note, print, printJson, started } from '../shared'
import { ask } from '../prompt'
import { explained } from '../status'
import { openInBrowser } from '../browser'
import { browserSignIn, deviceSignIn } from '../sign-in'
import type { Me } from '../types'

export default defineCommand({
  meta: {
    name: 'login',
    description: 'Sign in through the browser (or --device, or a key with --token) and save it',
  },
  args: {
    ...globalArgs,
    token: { type: 'string', description: 'An API key (svc_…) made in Settings, instead' },
    device: {
      type: 'boolean',
      description: 'Sign in without a browser here: type a code on another device',
    },
    paste: {
      type: 'boolean',
      description: 'Ask for the endpoint, the web URL and a key on the terminal',
    },
    endpoint: {
      type: 'string',
      description: `API address (default: ${DEFAULT_URL ?? 'none: give one'})`,
    },
    'web-url': { type: 'string', description: 'Web address (default: the endpoint)' },
  },
  async run({ args }) {
    started('login', { ...args, token: args.token ? '[given]' : undefined })
    // Checked by its own name before any question: a bad flag is not worth typing a key for. An
    // endpoint given is also the one a copy of svc without a default needs.
    const given = args.endpoint ? normalizeUrl(args.endpoint, 'endpoint') : undefined
    const current = resolveSettings({ endpoint: given })
    let { token } = args
    let endpoint = current.endpoint
    // One Worker serves the API and the pages: a new endpoint is the web address too, unless told.
    let webUrl = args['web-url']
      ? normalizeUrl(args['web-url'], 'web_url')
      : args.endpoint
        ? endpoint
        : current.webUrl
    // A key the CLI obtains itself is its to revoke at logout; one given to it is not.
    const source = !token && !args.paste ? 'sign-in' : 'given'
    if (!token && !args.paste) {
      // Through the browser: the key is made by the person's approval, for the workspace and
      // the access they pick there.
      token = args.device
        ? await deviceSignIn(endpoint, note)
        : await browserSignIn(endpoint, openInBrowser, note)
    }
    if (!token) {
      if (!process.stdin.isTTY) {
        throw new CliError('--paste needs a terminal to ask on', 'usage')
      }
      const typed = await askUrl('Endpoint', endpoint, 'endpoint')
      if (typed) {
        endpoint = typed
        if (!args['web-url']) webUrl = typed
      }
      webUrl = (await askUrl('Web URL', webUrl, 'web_url')) ?? webUrl
      token = await ask('API key: ', { hidden: true })
      if (!token) throw new CliError('no API key given', 'usage')
    }
    // The key is checked before anything is saved.
    const apiKey = token.trim()
    const me = await new Api(endpoint, apiKey).request<Me>('/v1/me').catch((err: unknown) => {
      if (!(err instanceof CliError)) throw err
      const why = explained(err, { endpoint, apiKey })
      throw new CliError(`${why.message}; nothing saved`, why.code)
    })
    writeConfig({
      ...readConfig(),
      api_key: apiKey,
      key_source: source,
      endpoint,
      web_url: webUrl,
    })
    if (args.json) printJson({ ...me, endpoint, web_url: webUrl })
    else print(`logged in as ${me.user.email} (workspace ${me.workspace.name}) at ${endpoint}`)
    overridden({ apiKey, endpoint, webUrl })
  },
})

/**
 * The environment wins over the file: a variable that sets another value than the one just saved
 * is named, or the next command would use it without a word.
 */
function overridden(saved: { apiKey: string; endpoint: string; webUrl: string }) {
  const { sources, ...inUse } = resolveSettings()
  for (const setting of ['apiKey', 'endpoint', 'webUrl'] as const) {
    const source = sources[setting]
    if (source.from === 'env' && inUse[setting] !== saved[setting]) {
      note(`${source.name} is set: commands use it, not the ${NAMES[setting]} just saved`)
    }
  }
}

const NAMES = { apiKey: 'key', endpoint: 'endpoint', webUrl: 'web URL' }

/**
 * A URL typed at the terminal, or null for the one on offer. One that is not a URL is said at
 * once and asked for again: the person has not yet typed the key, and loses nothing.
 */
async function askUrl(label: string, offered: string, name: string): Promise<string | null> {
  for (;;) {
    const typed = await ask(`${label} [${offered}]: `)
    if (!typed) return null
    try {
      return normalizeUrl(typed, name)
    } catch (err) {
      if (!(err instanceof CliError)) throw err
      note(err.message)
    }
  }
}
