import { Hono } from 'hono'
import { deleteCookie, getCookie } from 'hono/cookie'
import { createKey, listKeys, revokeKey } from '../domain/keys'
import { endSession, login, sessionActor, signup } from '../domain/users'
import type { AppEnv } from '../http/context'
import { isHttps, requireSession, sameOrigin, SESSION_COOKIE, startSession } from '../http/auth'
import { limitByIp } from '../http/limits'
import { createKeyBody, credentialsBody, id, loginBody } from '../http/schemas'
import { jsonBody, parse } from '../http/validate'

// JSON endpoints for the web app: session cookie, same origin only (README: API).
export const auth = new Hono<AppEnv>()

auth.use('*', sameOrigin, limitByIp('AUTH_LIMITER'))

auth.post('/signup', jsonBody(credentialsBody), async (c) => {
  const body = c.req.valid('json')
  const { account, sessionToken, expiresAt } = await signup(c.var.svc, body)
  startSession(c, sessionToken, expiresAt)
  return c.json(account, 201)
})

auth.post('/login', jsonBody(loginBody), async (c) => {
  const body = c.req.valid('json')
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

auth.post('/keys', requireSession, jsonBody(createKeyBody), async (c) => {
  const body = c.req.valid('json')
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
