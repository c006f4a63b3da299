import { defineCommand } from 'citty'
import { readConfig, writeConfig } from '../config'
import { begin, globalArgs, print, printJson } from '../shared'

export default defineCommand({
  meta: { name: 'logout', description: 'Remove the stored API key' },
  args: { ...globalArgs },
  async run({ args }) {
    begin('logout', args)
    const { api_key: removed, ...rest } = readConfig()
    if (removed) writeConfig(rest)
    if (args.json) return printJson({ logged_out: Boolean(removed) })
    print(removed ? 'logged out' : 'not logged in: nothing to do')
  },
})
