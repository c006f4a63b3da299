// Baseline: a bare Worker doing one D1 primary-key read per request.
type Env = { DB: D1Database; ID: string }

export default {
  async fetch(_request: Request, env: Env) {
    const row = await env.DB.prepare('SELECT * FROM canvases WHERE canvas_id = ?')
      .bind(env.ID)
      .first()
    return Response.json(row)
  },
}
