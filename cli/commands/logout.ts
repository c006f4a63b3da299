import { defineCommand } from 'citty'
import { readConfig, resolveSettings, writeConfig } from '../config'
import { revokeKey } from '../sign-in'
import { begin, globalArgs, note, print, printJson } from '../shared'

export default defineCommand({
  meta: {
    name: 'logout',
    description:
      'Forget the stored API key; revoke it too when svc signed in for it (or with --revoke)',
  },
  args: {
    ...globalArgs,
    revoke: {
      type: 'boolean',
      description: 'Revoke a key given with --token or --paste as well (it stops working anywhere)',
    },
  },
  async run({ args }) {
    begin('logout', args)
    const { api_key: removed, key_source: source, ...rest } = readConfig()
    if (!removed) {
      if (args.json) return printJson({ logged_out: false, revoked: false })
      return print('not logged in: nothing to do')
    }
    // A key svc signed in for is svc's own: ended where it works, not only forgotten here. One
    // given to it (a CI key pasted to try svc) may serve elsewhere, and is left working.
    if (source !== 'sign-in' && !args.revoke) {
      writeConfig(rest)
      if (args.json) return printJson({ logged_out: true, revoked: false })
      return print(
        'logged out: the key is forgotten here and still works where else it is used ' +
          '(svc logout --revoke, or Settings, ends it)',
      )
    }
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
