import { READ } from '../http/actor/need'
import { canvasReadership } from '../domain/views/views'
import * as output from '../schema/tool-outputs'
import * as input from '../schema/tools'
import { tool } from './mcp-tool'

// Readership over MCP (docs/readership.md): an agent learns who read what it published. Its own
// reads, by its key or app, are not counted.

export const VIEWS_TOOLS = [
  tool({
    name: 'get_views',
    title: 'Who read a canvas',
    description:
      'People’s reads of a canvas over the last `days` (default 30, at most 90): views by day ' +
      'with distinct readers, by version, by share link (named by the first characters of its ' +
      'token), which members read which version last, and opens of its links refused by ' +
      'reason (`denied`: expired, revoked, wrong_password, max_views), so an agent can tell ' +
      'when readers meet a link that no longer opens and share again. A read shows within a minute; ' +
      '`enabled` false means the deployment counts none.',
    input: input.viewsInput,
    output: output.readership,
    need: READ,
    run: async (ctx, { canvas_id, days }) =>
      canvasReadership(ctx.svc, ctx.actor, canvas_id, days ?? 30),
  }),
]
