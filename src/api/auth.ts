import { Hono } from 'hono'
import { deleteCookie, getCookie } from 'hono/cookie'
import { createKey, listKeys, revokeKey } from '../domain/keys'
import { endSession, login, sessionActor, signup } from '../domain/users'
import type { AppEnv } from '../http/context'
import { isHttps, requireSession, sameOrigin, SESSION_COOKIE, startSession } from '../http/auth'
import { limitByIp } from '../http/limits'
import { createKeyBody, credentialsBody, id, loginBody } from '../http/schemas'
import { parse, readJson } from '../http/validate'

// JSON endpoints for the web app: session cookie, same origin only (README: API).
export const auth = new Hono<AppEnv>()

auth.use('*', sameOrigin, limitByIp('AUTH_LIMITER'))

auth.post('/signup', async (c) => {
  const body = await readJson(c, credentialsBody)
  const { account, sessionToken, expiresAt } = await signup(c.var.svc, body)
  startSession(c, sessionToken, expiresAt)
  return c.json(account, 201)
})

auth.post('/login', async (c) => {
  const body = await readJson(c, loginBody)
  const { account, sessionToken, expiresAt } = await login(c.var.svc, body)
  startSession(c, sessionToken, expiresAt)
  return c.json(account)
})

auth.post('/logout', async (c) => {
  const token = getCookie(c, SESSION_COOKIE)
  if (token) await endSession(c.var.svc, token)
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c) })
  return c.json({ success: true })
})

auth.get('/keys', requireSession, async (c) => {
  return c.json({ keys: await listKeys(c.var.svc, sessionActor(c.var.session)) })
})

auth.post('/keys', requireSession, async (c) => {
  const body = await readJson(c, createKeyBody)
  const key = await createKey(
    c.var.svc,
    sessionActor(c.var.session),
    body.name,
    body.scopes ?? ['read', 'write'],
  )
  return c.json(key, 201)
})

auth.delete('/keys/:key_id', requireSession, async (c) => {
  await revokeKey(c.var.svc, sessionActor(c.var.session), parse(id, c.req.param('key_id')))
  return c.json({ success: true })
})
