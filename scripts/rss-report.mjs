// Preloaded with `node --import` by the CLI benchmarks and tests: writes the process's peak RSS
// (KiB) on exit, and its CPU time when asked. On Linux it is VmHWM, the peak of this process's own memory: getrusage's maxRSS
// (process.resourceUsage) survives exec, so a child started by a large parent (a benchmark that
// runs Miniflare in its own process) could report the parent's memory instead of its own.
import { readFileSync, writeFileSync } from 'node:fs'

function peakKiB() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    if (hwm) return Number(hwm[1])
  } catch {
    // Not Linux: no /proc.
  }
  return process.resourceUsage().maxRSS
}

process.on('exit', () => {
  if (process.env.RSS_REPORT) writeFileSync(process.env.RSS_REPORT, String(peakKiB()))
  // CPU time used (user + system, ms): what the process itself cost, beside the time it waited.
  const { user, system } = process.cpuUsage()
  if (process.env.CPU_REPORT) writeFileSync(process.env.CPU_REPORT, String((user + system) / 1000))
})
