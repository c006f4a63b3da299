// Baseline: a bare Hono Worker answering {ok:true}.
import { Hono } from 'hono'

const app = new Hono()
app.get('*', (c) => c.json({ ok: true }))
export default app
