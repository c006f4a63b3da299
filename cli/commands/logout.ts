import { defineCommand } from 'citty'
import { readConfig, resolveSettings, writeConfig } from '../config'
import { revokeKey } from '../sign-in'
import { begin, globalArgs, note, print, printJson } from '../shared'

export default defineCommand({
  meta: {
    name: 'logout',
    description: 'Revoke the stored API key at the deployment and forget it',
  },
  args: { ...globalArgs },
  async run({ args }) {
    begin('logout', args)
    const { api_key: removed, ...rest } = readConfig()
    if (!removed) {
      if (args.json) return printJson({ logged_out: false, revoked: false })
      return print('not logged in: nothing to do')
    }
    // Ended where it works first: a key only forgotten here would still open the workspace.
    const endpoint = args.endpoint
      ? resolveSettings({ endpoint: args.endpoint }).endpoint
      : (rest.endpoint ?? resolveSettings().endpoint)
    const why = await revokeKey(endpoint, removed)
    writeConfig(rest)
    if (args.json) return printJson({ logged_out: true, revoked: why === null })
    if (why) note(`the key could not be revoked at ${endpoint} (${why}): revoke it in Settings`)
    print(why ? 'logged out (the key is forgotten here)' : 'logged out: the key is revoked')
  },
})
