// What `--help` adds to citty's usage text: examples in the style of gh's help pages, and the
// "did you mean" of a mistyped command or flag.

const EXAMPLES: Record<string, string[]> = {
  svc: [
    'svc login --token svc_… --endpoint https://canvas.example',
    'svc push report.html',
    'svc share <id> --expires 7d',
    'svc open <id>',
    'svc status                        # which endpoint and key, and does the key work',
    'svc list --json',
  ],
  login: [
    'svc login                       # asked for the endpoint and key',
    'svc login --token svc_… --endpoint http://127.0.0.1:8787',
  ],
  logout: ['svc logout'],
  config: ['svc config show', 'svc config set web_url https://canvas.example'],
  'config show': ['svc config show --json'],
  'config set': ['svc config set endpoint https://api.canvas.example'],
  status: [
    'svc status                       # endpoint, web URL, key: where each comes from; does the key work?',
    'svc status --endpoint https://canvas.example   # the key in use, checked there',
    'svc status --json',
  ],
  whoami: ['svc whoami', 'svc whoami --json'],
  usage: ['svc usage'],
  push: [
    'svc push report.html                  # a new canvas, kept 24 hours',
    'svc push report.html --id <id>        # a new version of that canvas',
    'svc push chart.svg --save --public',
    'svc push notes.md --json | jq -r .view_url',
    'svc push ./site                       # a folder: every file, as one site',
    'svc push ./site --id <id> --watch     # uploads only the files that changed',
    'svc push ./docs --main guide/index.html',
  ],
  pull: [
    'svc pull <id> -o report.html',
    'svc pull <id> --version 2 -o old.html',
    'svc pull <id> -o ./site               # a site: every file under ./site',
    'svc pull <id> --zip                   # the version as <title>-v<n>.zip',
  ],
  list: ['svc list', 'svc list --type html --limit 50', 'svc list --json'],
  share: [
    'svc share <id>',
    'svc share <id> --expires 7d --password s3cret --max-views 100',
    'svc share <id> --comments             # its readers may comment; svc comments <id> reads them',
  ],
  shares: ['svc shares <id>', 'svc shares <id> --json'],
  unshare: [
    'svc unshare <id>                 # every link, after asking',
    'svc unshare <id> --yes           # every link, no question, for scripts',
    'svc unshare <id> --token <token> # one link',
  ],
  comments: [
    'svc comments <id>                    # the open ones, with their replies',
    'svc comments <id> --status all --json',
  ],
  comment: [
    'svc comment <id> "Looks good; ship it"',
    'svc comment <id> "Which quarter?" --quote "Revenue grew"',
    'svc comment <id> --reply <comment_id> "Fixed in version 3"',
  ],
  resolve: ['svc resolve <id> <comment_id>', 'svc resolve <id> <comment_id> --reopen'],
  review: [
    'svc review <id> --to ada@example.com --note "The Q3 numbers"',
    'svc review <id>                      # any editor may approve',
    'svc review --wait <review_id> --json # as soon as it is decided',
  ],
  approve: ['svc approve <review_id> --comment "Ship it"'],
  'request-changes': ['svc request-changes <review_id> --comment "The chart is upside down"'],
  views: [
    'svc views <id>                       # the last 30 days, a bar a day',
    'svc views <id> --days 7 --json',
  ],
  open: [
    'svc open <id>',
    'svc open https://canvas.example/c/<id>',
    'svc open <id> --json                  # {canvas_id, view_url, opened}',
  ],
  view: ['svc view <id>                         # the same as svc open'],
  download: [
    'svc download https://canvas.example/s/<token>',
    'svc download <token> --password s3cret -o report.html',
  ],
  versions: ['svc versions <id>'],
  rollback: ['svc rollback <id> 2          # a new version with the content of version 2'],
  update: ['svc update <id> --title "Q3 report" --visibility public'],
  save: ['svc save <id>'],
  delete: ['svc delete <id>', 'svc delete <id> --yes          # no question, for scripts'],
  renderers: ['svc renderers', 'svc push data.txt --renderer code'],
  workspaces: ['svc workspaces', 'svc workspaces --json'],
  members: ['svc members', 'svc members --workspace <workspace_id> --json'],
  invite: [
    'svc invite                          # an editor, whoever opens the link',
    'svc invite --role viewer --email ada@example.com --expires 3d',
  ],
  'remove-member': [
    'svc remove-member ada@example.com',
    'svc remove-member <user_id> --yes   # no question, for scripts',
  ],
  role: [
    'svc role ada@example.com viewer',
    'svc role <user_id> admin --workspace <workspace_id> --json',
  ],
  audit: [
    'svc audit                           # the last 50 changes in the key’s workspace',
    'svc audit --action member.removed --limit 200 --json',
  ],
}

export function examples(path: string): string {
  const lines = EXAMPLES[path]
  return lines ? `\nEXAMPLES\n\n${lines.map((l) => `  $ ${l}`).join('\n')}\n` : ''
}

/** The closest of `candidates` to a mistyped `word`, if any is close enough to be the one meant. */
export function closest(word: string, candidates: string[]): string | null {
  let best = ''
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate)
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  return best || null
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    }
    previous = current
  }
  return previous[b.length]
}
