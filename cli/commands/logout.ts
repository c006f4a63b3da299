import { defineCommand } from 'citty'
import { readConfig, writeConfig } from '../config'
import { begin, globalArgs, print } from '../shared'

export default defineCommand({
  meta: { name: 'logout', description: 'Remove the stored API key' },
  args: { ...globalArgs },
  async run({ args }) {
    begin('logout', args)
    const { api_key: _removed, ...rest } = readConfig()
    writeConfig(rest)
    print('logged out')
  },
})
