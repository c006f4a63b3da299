import { renderUsage, runCommand, type ArgsDef, type CommandDef } from 'citty'
import { CliError, usageError } from './errors'
import { closest, examples } from './help'
import { log } from './log'
import { Formatted, jsonText, note, visible } from './output'

// The `svc` root command (./index answers `--version` before this loads); subcommands load lazily.

declare const __VERSION__: string

const subCommands = {
  login: () => import('./commands/login').then((m) => m.default),
  logout: () => import('./commands/logout').then((m) => m.default),
  config: () => import('./commands/config').then((m) => m.default),
  status: () => import('./commands/status').then((m) => m.default),
  whoami: () => import('./commands/whoami').then((m) => m.default),
  usage: () => import('./commands/usage').then((m) => m.default),
  push: () => import('./commands/push').then((m) => m.default),
  pull: () => import('./commands/pull').then((m) => m.default),
  open: () => import('./commands/open').then((m) => m.default),
  list: () => import('./commands/list').then((m) => m.default),
  search: () => import('./commands/search').then((m) => m.default),
  share: () => import('./commands/share').then((m) => m.default),
  shares: () => import('./commands/shares').then((m) => m.default),
  unshare: () => import('./commands/unshare').then((m) => m.default),
  comments: () => import('./commands/comments').then((m) => m.default),
  comment: () => import('./commands/comment').then((m) => m.default),
  resolve: () => import('./commands/resolve').then((m) => m.default),
  review: () => import('./commands/review').then((m) => m.default),
  approve: () => import('./commands/approve').then((m) => m.default),
  'request-changes': () => import('./commands/request-changes').then((m) => m.default),
  views: () => import('./commands/views').then((m) => m.default),
  view: () => import('./commands/view').then((m) => m.default),
  download: () => import('./commands/download').then((m) => m.default),
  versions: () => import('./commands/versions').then((m) => m.default),
  rollback: () => import('./commands/rollback').then((m) => m.default),
  update: () => import('./commands/update').then((m) => m.default),
  save: () => import('./commands/save').then((m) => m.default),
  delete: () => import('./commands/delete').then((m) => m.default),
  renderers: () => import('./commands/renderers').then((m) => m.default),
  workspaces: () => import('./commands/workspaces').then((m) => m.default),
  members: () => import('./commands/members').then((m) => m.default),
  invite: () => import('./commands/invite').then((m) => m.default),
  'remove-member': () => import('./commands/remove-member').then((m) => m.default),
  role: () => import('./commands/role').then((m) => m.default),
  audit: () => import('./commands/audit').then((m) => m.default),
}

const main: CommandDef = {
  meta: {
    name: 'svc',
    version: __VERSION__,
    description: 'Publish files as live, versioned, shareable pages',
  },
  args: {
    debug: { type: 'boolean', description: 'Print every log entry to stderr as it happens' },
  },
  subCommands,
}

// Flags that mean the same to every command, accepted before the command's name as well as after
// (`--json=false` and `--no-debug` included).
const GLOBAL_FLAG = /^(--(no-)?(debug|json)(=.*)?|--help|-h)$/

/**
 * citty hands a subcommand only the words after its name, so `svc --debug whoami` would lose the
 * flag: global flags written before the command move after it.
 */
function globalFlagsLast(rawArgs: string[]): string[] {
  const leading: string[] = []
  let i = 0
  while (i < rawArgs.length && GLOBAL_FLAG.test(rawArgs[i])) leading.push(rawArgs[i++])
  return i < rawArgs.length ? [...rawArgs.slice(i), ...leading] : rawArgs
}

async function run(givenArgs: string[]) {
  const rawArgs = globalFlagsLast(givenArgs)
  const { command, parent, path } = await resolve(main, rawArgs)
  // Before any help: `svc --endpoint x whoami` is a mistake to name, not a request for help.
  await checkFlags(command, rawArgs)
  // A group such as `config` on its own has nothing to run: its help says what it holds.
  const group = !command.run && Boolean(command.subCommands)
  if (rawArgs.includes('--help') || rawArgs.includes('-h') || rawArgs.length === 0 || group) {
    const usage = await renderUsage(command, parent === command ? undefined : parent)
    process.stdout.write(plain(usage) + '\n' + examples(path.join(' ') || 'svc'))
    return
  }
  await runCommand(main, { rawArgs })
}

/** citty colours its usage text; a pipe or NO_COLOR gets it plain. */
function plain(text: string): string {
  const colour = process.stdout.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb'
  return colour ? text : text.replace(/\x1b\[[0-9;]*m/g, '')
}

/** The command the arguments name, walking subcommands by their leading words. */
async function resolve(root: CommandDef, rawArgs: string[]) {
  let command = root
  let parent = root
  const path: string[] = []
  for (const word of rawArgs) {
    if (word.startsWith('-')) break
    const subs = (await value(command.subCommands)) as Record<string, unknown> | undefined
    if (!subs) break
    const sub = subs[word]
    if (!sub) {
      const meant = closest(word, Object.keys(subs))
      throw usageError(
        meant
          ? `unknown command '${word}': did you mean '${meant}'?`
          : `unknown command '${word}'; see svc --help`,
      )
    }
    parent = command
    command = (await value(sub)) as CommandDef
    path.push(word)
  }
  return { command, parent, path }
}

/** citty accepts any flag; a typo must fail loudly instead of being ignored. */
async function checkFlags(command: CommandDef, rawArgs: string[]) {
  const defs = ((await value(command.args)) ?? {}) as ArgsDef
  const known = new Set<string>(['debug', 'json', 'help', 'h'])
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'positional') continue
    known.add(name)
    const aliases = 'alias' in def && def.alias ? [def.alias].flat() : []
    for (const alias of aliases) known.add(alias)
  }
  for (const arg of rawArgs) {
    if (arg === '--') break
    const match = /^--?(?:no-)?([^=]+)/.exec(arg)
    if (!match || /^-\d/.test(arg)) continue
    const name = arg.startsWith('--') ? match[1] : match[1].slice(0, 1)
    if (!known.has(name)) {
      const given = arg.split('=')[0]
      const meant = arg.startsWith('--') ? closest(name, [...known]) : null
      throw usageError(
        meant
          ? `unknown option '${given}': did you mean '--${meant}'?`
          : `unknown option '${given}'; see --help`,
      )
    }
  }
}

async function value<T>(resolvable: T | (() => T) | (() => Promise<T>) | Promise<T>): Promise<T> {
  return typeof resolvable === 'function' ? (resolvable as () => T | Promise<T>)() : resolvable
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    const error = asCliError(err)
    log('ERROR', error.message, { code: error.code })
    if (process.argv.includes('--debug') && err instanceof Error && error.code === 'internal') {
      note(new Formatted(String(err.stack).split('\n').map(visible).join('\n')))
    }
    // Messages may be a server's: written through the output's escapes, never as they came.
    if (process.argv.includes('--json')) {
      note(new Formatted(jsonText({ error: { code: error.code, message: error.message } })))
    } else {
      note(`error: ${error.message} (${error.code})`)
    }
    // 2 for a mistake in the command line itself, so a script can tell it from a failure.
    process.exit(error.code === 'usage' ? 2 : 1)
  },
)

/** citty's own errors are mistakes in the command line; a system call's are not. */
function asCliError(err: unknown): CliError {
  if (err instanceof CliError) return err
  if (err instanceof Error && err.name === 'CLIError') return new CliError(err.message, 'usage')
  if (err instanceof Error && /^E[A-Z]+$/.test((err as NodeJS.ErrnoException).code ?? '')) {
    return new CliError(err.message, 'io_error')
  }
  return new CliError(err instanceof Error ? err.message : String(err), 'internal')
}
