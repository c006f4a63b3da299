// The `svc` entry: `--version` prints before anything else is loaded or even evaluated; every
// other use goes to ./main.

declare const __VERSION__: string

const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${__VERSION__}\n`)
} else {
  await import('./main')
}

// A module, for the top-level await above.
export {}
