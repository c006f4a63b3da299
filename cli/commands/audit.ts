import { defineCommand } from 'citty'
import { usageError } from '../errors'
import { begin, globalArgs, print, printJson, table } from '../shared'
import type { AuditList } from '../types'
import { ago } from '../when'

// The audit log of the key's workspace (its admins'), newest first: as many pages as --limit
// asks for, each read from where the one before ended.

const PAGE = 100

export default defineCommand({
  meta: { name: 'audit', description: 'Show who changed what in the workspace, newest first' },
  args: {
    ...globalArgs,
    action: { type: 'string', description: 'Only this action, e.g. member.removed' },
    actor: {
      type: 'string',
      description: 'Only what this person did, by any key or app (email), or a key or app (name)',
    },
    target: { type: 'string', description: 'Only what concerns this id (a canvas, a member, ...)' },
    limit: { type: 'string', description: 'How many events at most (default 50)' },
  },
  async run({ args }) {
    const { api } = begin('audit', args)
    const limit = args.limit === undefined ? 50 : Number(args.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
      throw usageError('--limit: a whole number from 1 to 10000')
    }
    const events: AuditList['events'] = []
    let cursor: string | null = null
    do {
      const query = new URLSearchParams({ limit: String(Math.min(PAGE, limit - events.length)) })
      for (const name of ['action', 'actor', 'target'] as const) {
        if (args[name]) query.set(name, args[name])
      }
      if (cursor) query.set('cursor', cursor)
      const page: AuditList = await api.request<AuditList>(`/v1/audit?${query}`)
      events.push(...page.events)
      cursor = page.next_cursor
    } while (cursor && events.length < limit)
    if (args.json) return printJson({ events, next_cursor: cursor })
    const rows = events.map((e) => [
      ago(e.at),
      who(e.actor),
      e.action,
      `${e.target.type} ${e.target.id}`,
    ])
    print(table(['WHEN', 'WHO', 'ACTION', 'TARGET'], rows))
  },
})

/** A key's or app's name beside its person's email ("svc on vm · ada@…"), a member by email. */
function who(actor: AuditList['events'][number]['actor']): string {
  const byCredential = actor.kind === 'key' || actor.kind === 'agent'
  const person = actor.person?.email
  if (byCredential) return `${actor.name}${person ? ` · ${person}` : ''} (${actor.kind})`
  return `${person ?? actor.name} (${actor.kind})`
}
