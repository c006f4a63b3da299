import type * as z from 'zod/mini'
import type { Actor } from '../domain/actor'
import type { Services } from '../domain/services'
import type { Need } from '../http/actor/need'
import type { Canvas } from '../schema/responses'
import type { StorageTarget } from '../storage/presign'

// What an MCP tool is (mcp-tools.ts lists them; mcp-server.ts serves them): its names, its
// arguments' and answer's shapes, whether it changes anything, and what it does.

export type ToolContext = {
  svc: Services
  /** The same services reading D1's primary, for a read that must see a write as it lands. */
  primary: Services
  actor: Actor
  /** This server's origin, for the URLs people open. */
  origin: string
  storage: () => StorageTarget
}

type Tool<S extends z.ZodMiniType, O extends z.ZodMiniType> = {
  name: string
  /** Its name for people, as a connector directory shows it. */
  title: string
  description: string
  input: S
  output: O
  /** What a credential needs to call it (http/actor/need.ts); the tools listed are those it may. */
  need: Need
  /**
   * What a tool that changes something does, as MCP's annotations say it: `destructive`, it
   * removes or ends what cannot be had back; `idempotent`, calling it again with the same
   * arguments changes nothing more. None of them reaches beyond this service (openWorldHint false).
   */
  effect?: { destructive: boolean; idempotent: boolean }
  /** Its answer is a canvas, which the MCP Apps view (mcp-app.ts) can show. */
  shows?: 'canvas'
  run: (ctx: ToolContext, args: z.output<S>) => Promise<NoInfer<z.output<O>>>
}

export const tool = <S extends z.ZodMiniType, O extends z.ZodMiniType>(t: Tool<S, O>) =>
  t as unknown as Tool<z.ZodMiniType, z.ZodMiniType>

// One name for one thing, as the CLI's --json says it: a canvas's page is `view_url`, a link `url`.
export const withUrl = <C extends Canvas>(ctx: ToolContext, canvas: C) => ({
  ...canvas,
  view_url: `${ctx.origin}/c/${canvas.canvas_id}`,
})
