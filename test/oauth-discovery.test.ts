import { describe, expect, it } from 'vitest'
import { call, errorOf, json, newAccount } from './support/api'
import { HTTPS, mcp } from './support/oauth'

// How a chat app given only the URL finds its way: a 401 from /mcp names the protected resource
// metadata (RFC 9728), which names this server as the authorization server (RFC 8414).

const METADATA = `${HTTPS}/.well-known/oauth-protected-resource`

describe('a chat app given only the URL', () => {
  it('gets a 401 naming the resource metadata, with the error envelope', async () => {
    const res = await mcp(null, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'app', version: '1' },
    })
    expect(res.status).toBe(401)
    expect(res.headers.get('WWW-Authenticate')).toBe(`Bearer resource_metadata="${METADATA}"`)
    expect(await json(res)).toEqual(
      errorOf('unauthorized', 'missing API key: send Authorization: Bearer <key>'),
    )
  })

  it('gets invalid_token for a credential that is none, key or token alike', async () => {
    const owner = await newAccount()
    const revoked = `svc_${'A1b2C3d4E5'.repeat(4)}`
    for (const [bearer, message] of [
      [revoked, 'invalid or revoked API key'],
      ['user:grant:secret', 'invalid or expired access token'],
      [`${owner.userId}:nope:nope`, 'invalid or expired access token'],
    ]) {
      const res = await mcp(bearer, 'tools/list')
      expect(res.status, bearer).toBe(401)
      expect(res.headers.get('WWW-Authenticate'), bearer).toBe(
        `Bearer error="invalid_token", resource_metadata="${METADATA}"`,
      )
      expect(await json(res)).toEqual(errorOf('unauthorized', message))
    }
    // A key still works as it did, with no challenge.
    const ok = await mcp(owner.key, 'tools/list')
    expect(ok.status).toBe(200)
    expect(ok.headers.get('WWW-Authenticate')).toBeNull()
  })

  it('reads the resource metadata at either address: /mcp, served by this origin', async () => {
    for (const path of ['', '/mcp']) {
      const res = await call(`${METADATA}${path}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*')
      expect(await json(res)).toEqual({
        resource: `${HTTPS}/mcp`,
        authorization_servers: [HTTPS],
        scopes_supported: ['canvas:read', 'canvas:write'],
        bearer_methods_supported: ['header'],
        resource_name: 'Canvas',
        resource_documentation: `${HTTPS}/llms.txt`,
      })
    }
  })

  it('reads the authorization server metadata: code with PKCE S256, registration, documents', async () => {
    const res = await call(`${HTTPS}/.well-known/oauth-authorization-server`)
    expect(res.status).toBe(200)
    expect(res.headers.get('Vary')).toMatch(/\bHost\b/)
    const meta = await json(res)
    expect(meta).toMatchObject({
      issuer: HTTPS,
      authorization_endpoint: `${HTTPS}/oauth/authorize`,
      token_endpoint: `${HTTPS}/oauth/token`,
      registration_endpoint: `${HTTPS}/oauth/register`,
      revocation_endpoint: `${HTTPS}/oauth/token`,
      scopes_supported: ['canvas:read', 'canvas:write'],
      response_types_supported: ['code'],
      grant_types_supported: [
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:device_code',
        'urn:ietf:params:oauth:grant-type:token-exchange',
      ],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      // The CLI's sign-in without a browser (RFC 8628).
      device_authorization_endpoint: `${HTTPS}/oauth/device_authorization`,
      // The deployment's own CLI: the one client whose sign-ins become API keys.
      cli_client_id: expect.stringMatching(/^[\w-]{8,}$/),
    })
    expect(meta.token_endpoint_auth_methods_supported).toContain('none')
    // Made once: every issuer and every later request name the same client.
    const again = await json(await call(`${HTTPS}/.well-known/oauth-authorization-server`))
    expect(again.cli_client_id).toBe(meta.cli_client_id)
  })

  it('answers the CORS preflight of a browser-based client', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
      '/oauth/register',
      '/oauth/token',
    ]) {
      const res = await call(`${HTTPS}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://inspector.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type, mcp-protocol-version',
        },
      })
      expect(res.status, path).toBe(204)
      expect(res.headers.get('Access-Control-Allow-Origin'), path).toBe('https://inspector.example')
      expect(res.headers.get('Access-Control-Allow-Headers'), path).toMatch(/Content-Type/)
    }
  })

  it('is served over https only (or on the machine itself), never in clear', async () => {
    const clear = await call('http://canvas.test/.well-known/oauth-authorization-server')
    expect(clear.status).toBe(404)
    expect(await json(clear)).toEqual(errorOf('not_found', 'OAuth is served over https only'))
    const token = await call('http://canvas.test/oauth/token', { method: 'POST' })
    expect(token.status).toBe(404)
    expect(await json(token)).toEqual({
      error: 'invalid_request',
      error_description: 'OAuth is served over https only',
    })
    // On the machine itself: a loopback name, reached from a loopback address.
    const metadata = 'http://127.0.0.1:8787/.well-known/oauth-authorization-server'
    expect((await call(metadata, { ip: '192.168.1.20' })).status).toBe(404)
    const local = await call(metadata, { ip: '127.0.0.1' })
    expect(local.status).toBe(200)
    expect((await json(local)).issuer).toBe('http://127.0.0.1:8787')
  })
})
