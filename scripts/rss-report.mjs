// Preloaded with `node --import` by the CLI benchmark: writes the process's peak RSS (KiB) on exit.
import { writeFileSync } from 'node:fs'

process.on('exit', () => {
  if (process.env.RSS_REPORT)
    writeFileSync(process.env.RSS_REPORT, String(process.resourceUsage().maxRSS))
})
