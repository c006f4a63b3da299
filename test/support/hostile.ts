import fc from 'fast-check'
import { EVENT_TYPES } from '../../src/lib/events'
import {
  badEmail,
  badPersonName,
  badShownName,
  badExt,
  huge,
  percentEncode,
  quoteless,
  wild,
  withControl,
  wrongType,
} from './hostile-values'
import { fieldAttacks, valuesOf } from './hostile-fields'
import { formPost, ORIGIN } from './api'
import { routeName, ROUTES, type Route } from './routes'
import { requestFor, type Prepared, type World } from './world'

// Generators of hostile requests: each one is wrong in at least one way the contract refuses
// (a field of the wrong type or size, a control character, a path that cannot name anything, a
// body that does not parse), wrapped in everything else a fuzzer can think of: unicode edge cases,
// NUL bytes, path traversal, header injection, huge and empty values.

export type Hostile = Prepared & { route: Route; attack: string }

/** A valid base body of a route that takes JSON, and how each of its fields is made invalid. */
function jsonFields(
  route: Route,
  world: World,
): [Record<string, unknown>, Record<string, fc.Arbitrary<unknown>>] | null {
  const attacks = fieldAttacks(world)[routeName(route)]
  if (!attacks) return null
  const base = requestFor(route, world).init.json as Record<string, unknown> | undefined
  const fields = Object.fromEntries(Object.entries(attacks).map(([n, a]) => [n, valuesOf(a)]))
  return [base ?? {}, fields]
}

/** One or more fields made invalid, others left valid, maybe an unknown field on top. */
function badJsonBody(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  const spec = jsonFields(route, world)
  if (!spec) return null
  const [base, fields] = spec
  const names = Object.keys(fields)
  // Some fields made invalid, or an unknown field beside valid ones (bodies are strict), or both.
  // The unknown field goes into the text itself: `__proto__` would vanish from an object.
  const corrupted = fc
    .tuple(
      fc.subarray(names),
      fc.option(fc.constantFrom('__proto__', 'constructor', 'extra', 'title ', 'TITLE')),
    )
    .filter(
      ([chosen, extra]) => chosen.length > 0 || (extra !== null && !Object.hasOwn(fields, extra)),
    )
    .chain(([chosen, extra]) =>
      fc.tuple(...chosen.map((n) => fields[n])).map((values) => {
        const body: Record<string, unknown> = { ...base }
        chosen.forEach((n, i) => (body[n] = values[i]))
        const text = JSON.stringify(body)
        if (!extra || Object.hasOwn(fields, extra)) return text
        return `{${JSON.stringify(extra)}:1${text === '{}' ? '' : ','}${text.slice(1)}`
      }),
    )
  const raw = fc.oneof(
    corrupted.map((text) => ({ text, attack: 'invalid field' })),
    wild.map((t) => ({ text: `{${t}`, attack: 'malformed JSON' })),
    fc.constantFrom('null', '[]', '"x"', '1', 'true', '{"a":', '').map((t) => ({
      text: t,
      attack: 'not an object',
    })),
    fc.constant({ text: '['.repeat(5000), attack: 'deep nesting' }),
  )
  return raw.map(({ text, attack }) => {
    const prepared = requestFor(route, world)
    const init = { ...prepared.init, json: undefined }
    return {
      ...prepared,
      route,
      attack,
      // Other headers stay (the web script's CSRF token), so the body is what gets refused.
      init: {
        ...init,
        body: text,
        headers: { ...(init.headers as {}), 'Content-Type': 'application/json' },
      },
    }
  })
}

/** multipart/form-data that does not parse, or parses into a field the contract refuses. */
function badMultipart(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  if (!['POST /v1/canvases', 'PATCH /v1/canvases/:id'].includes(`${route.method} ${route.path}`))
    return null
  const prepared = requestFor(route, world)
  const boundary = 'hostileBoundary42'
  const part = (name: string, value: string, filename?: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${
      filename === undefined ? '' : `; filename="${filename}"`
    }\r\n\r\n${value}\r\n`
  const fields = fc.oneof(
    withControl.map((t) => part('title', t) + part('file', 'x', 'a.txt')),
    badExt
      .filter((e): e is string => typeof e === 'string')
      .map((e) => part('ext', e) + part('file', 'x', 'a.txt')),
    fc.constant(part('permanent', 'maybe') + part('file', 'x', 'a.txt')),
    fc.constant(part('file', 'x', 'a.txt') + part('file', 'y', 'b.txt')),
    fc.constant(part('file', 'not a file part')),
    fc.constant(part('file', 'x', 'a.txt') + part('file_id', 'abc')),
  )
  // On a create, the file name is the title's default: one with a control character is refused.
  const badName = fc
    .tuple(quoteless, fc.constantFrom('\u0000', '\t', '\u001b', '\u007f', '\u0008'), quoteless)
    .map(([a, c, b]) => part('file', 'x', `${a}${c}${b}.txt`))
  const bodies = route.method === 'POST' ? fc.oneof(fields, badName) : fields
  return fc
    .oneof(
      bodies.map((body) => ({ body: `${body}--${boundary}--\r\n`, boundary, attack: 'bad field' })),
      fc.uint8Array({ maxLength: 200 }).map((body) => ({ body, boundary, attack: 'garbage' })),
      fc.constant({ body: 'x', boundary: '', attack: 'no boundary' }),
    )
    .map(({ body, boundary: b, attack }) => ({
      path: prepared.path,
      route,
      attack: `multipart ${attack}`,
      init: {
        method: route.method,
        body,
        headers: {
          'Content-Type': b ? `multipart/form-data; boundary=${b}` : 'multipart/form-data',
        },
      },
    }))
}

/**
 * The web app's forms, filled in wrongly but otherwise as the owner's own page would send them
 * (with the session's CSRF token), so the fields themselves are what gets refused.
 */
function badForm(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  const csrf = world.csrf
  // The form trims the name: what is refused must survive the trim.
  const name = fc.oneof(
    fc.constantFrom('', '   '),
    withControl.map((n) => `k${n}k`),
    fc.string({ unit: 'binary', minLength: 99, maxLength: 140 }).map((n) => `k${n}k`),
  )
  const wrongPassword = fc.oneof(wild, huge(256)).filter((p) => p !== world.sharePassword)
  const forms: Record<string, fc.Arbitrary<{ path: string; fields: Record<string, string> }>> = {
    'POST /settings/keys': fc.oneof(
      name.map((n) => ({
        path: '/settings/keys',
        fields: { _csrf: csrf, name: n, scope: 'read' },
      })),
      // The access choice names the API's scopes; anything else is refused like the API's.
      fc
        .oneof(fc.constantFrom('', 'admin', 'READ', 'read,write'), wild)
        .filter((scope) => scope !== 'read' && scope !== 'write')
        .map((scope) => ({ path: '/settings/keys', fields: { _csrf: csrf, name: 'k', scope } })),
    ),
    // A new password signup would refuse, or any current password but the right one.
    'POST /settings/password': fc.oneof(
      fc.oneof(fc.string({ maxLength: 7 }), huge(257)).map((password) => ({
        path: '/settings/password',
        fields: { _csrf: csrf, current: world.owner.password, password },
      })),
      fc
        .oneof(wild, huge(256))
        .filter((current) => current !== world.owner.password)
        .map((current) => ({
          path: '/settings/password',
          fields: { _csrf: csrf, current, password: 'a fine new password' },
        })),
    ),
    // The form trims the name, as the keys' form does: what is refused must survive the trim.
    'POST /settings/name': fc
      .oneof(badPersonName, huge(61), withControl)
      .map((n) => `k${n}k`)
      .map((display_name) => ({ path: '/settings/name', fields: { _csrf: csrf, display_name } })),
    'POST /settings/webhooks': fc
      .oneof(
        fc
          .constantFrom(
            '',
            'ftp://hooks.example.com/',
            'https://10.0.0.1/',
            'https://printer.local/',
            'https://u:p@hooks.example.com/',
            'hooks.example.com',
          )
          .map((url) => new URLSearchParams({ url, events: 'canvas.deleted' })),
        fc
          .oneof(fc.constantFrom('', 'canvas.created', 'CANVAS.DELETED'), wild)
          .filter((e) => !(EVENT_TYPES as readonly string[]).includes(e.trim()))
          .map((events) => new URLSearchParams({ url: 'https://hooks.example.com/', events })),
        fc.constant(new URLSearchParams({ url: 'https://hooks.example.com/' })),
      )
      .map((params) => {
        params.set('_csrf', csrf)
        return { path: '/settings/webhooks', fields: Object.fromEntries(params) }
      }),
    'POST /c/:id/share': fc
      .oneof(
        fc.constantFrom('0s', '366d', '10y', '-1h').map((e) => ({ expires_in: e })),
        fc.constantFrom('0', '-1', '1000001', '1.5', 'ten', '1e3').map((m) => ({ max_views: m })),
        fc.constantFrom('0', '-1', '999', '2.5', 'v1').map((v) => ({ version: v })),
        fc
          .oneof(fc.constantFrom('short', world.token, 'has space!', 'a/b/../c-d'), withControl)
          .map((token) => ({ token })),
        wild
          .filter((e) => !/^[1-9]\d{0,8}[smhdw]$/.test(e) && e !== '')
          .map((e) => ({
            expires_in: e,
          })),
        fc.constantFrom('a', 'abc').map((p) => ({ password: p })),
        // The API's cap holds in the form too (it once took 60,000 characters).
        fc.integer({ min: 257, max: 60_000 }).map((n) => ({ password: 'p'.repeat(n) })),
      )
      .map((fields) => ({
        path: `/c/${world.canvasId}/share`,
        fields: { _csrf: csrf, ...fields },
      })),
    'POST /c/:id/visibility': wild
      .filter((v) => v !== 'public' && v !== 'private' && v !== '')
      .map((visibility) => ({
        path: `/c/${world.canvasId}/visibility`,
        fields: { _csrf: csrf, visibility },
      })),
    // The page's own upload form without JavaScript: no file part, or a canvas that is not one.
    'POST /upload': fc
      .oneof(
        fc.constant({}),
        wild.map((file) => ({ file })),
        wild.filter((id) => !/^[A-Za-z0-9]{1,64}$/.test(id)).map((canvas_id) => ({ canvas_id })),
      )
      .map((fields) => ({ path: '/upload', fields: { _csrf: csrf, ...fields } })),
    'POST /signup': fc
      .oneof(
        badEmail
          .filter((e): e is string => typeof e === 'string')
          .map((email) => ({
            email,
            password: 'a long password',
          })),
        fc.constantFrom('', 'short').map((password) => ({ email: 'new@example.com', password })),
      )
      .map((fields) => ({ path: '/signup', fields })),
    'POST /login': wrongPassword.map((password) => ({
      path: '/login',
      fields: { email: world.owner.email, password },
    })),
    // The consent page's answer without this session's CSRF token: nothing approved or denied.
    'POST /oauth/authorize': fc
      .oneof(fc.constant(''), wild, fc.constant('0'.repeat(32)))
      .filter((token) => token !== csrf)
      .map((token) => ({
        path: world.oauth.authorize,
        fields: { _csrf: token, decision: 'approve' },
      })),
    // The device page: a code that is none, or the world's pending one for a workspace that is not
    // the person's: nothing approved.
    'POST /oauth/device': fc.oneof(
      fc
        .oneof(wild, fc.constantFrom('', 'BCDF-GHJK', 'AEIO-UAEI', world.userCode.slice(1)))
        .map((user_code) => ({
          path: '/oauth/device',
          fields: { _csrf: csrf, user_code, decision: 'approve' },
        })),
      // (None at all is the session's own workspace: a choice, not a mistake.)
      fc
        .oneof(wild, fc.constant(world.other.workspaceId))
        .filter((id) => id !== '')
        .map((workspace_id) => ({
          path: '/oauth/device',
          fields: { _csrf: csrf, user_code: world.userCode, decision: 'approve', workspace_id },
        })),
    ),
    // A password reset link's new password that signup would refuse.
    'POST /reset/:token': fc.oneof(fc.string({ maxLength: 7 }), huge(257)).map((password) => ({
      path: `/reset/${world.resetToken}`,
      fields: { password },
    })),
    'POST /s/:token': wrongPassword.map((password) => ({
      path: `/s/${world.token}`,
      fields: { password },
    })),
  }
  const arbitrary = forms[`${route.method} ${route.path}`]
  if (!arbitrary) return null
  return arbitrary.map(({ path, fields }) => ({
    path,
    route,
    attack: 'bad form field',
    init: formPost(fields),
  }))
}

/**
 * Registrations (RFC 7591) the OAuth server must refuse: no redirect URI it may send a code to
 * (a script, a remote http one, a fragment, credentials), or no JSON object at all. Unknown
 * fields are no mistake there: RFC 7591 has servers ignore them.
 */
function badRegistration(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  if (`${route.method} ${route.path}` !== 'POST /oauth/register') return null
  const prepared = requestFor(route, world)
  const redirect = fc.constantFrom(
    'javascript:alert(1)',
    'http://evil.example/callback',
    'https://app.example/callback#fragment',
    'https://user:secret@app.example/callback',
    'data:text/html,hi',
    '//evil.example/callback',
    'not a URL',
  )
  const text = fc.oneof(
    fc
      .tuple(fc.oneof(fc.array(redirect, { minLength: 1, maxLength: 3 }), wrongType), wild)
      .map(([redirect_uris, client_name]) => JSON.stringify({ client_name, redirect_uris })),
    // A good redirect under a name that passes for another, or is too long to show.
    fc
      .oneof(badShownName, huge(101))
      .map((client_name) =>
        JSON.stringify({ client_name, redirect_uris: ['http://127.0.0.1:7777/callback'] }),
      ),
    wild.map((t) => `{${t}`),
    fc.constantFrom('null', '[]', '"x"', '1', '', '{"redirect_uris":[]}'),
  )
  return text.map((body) => ({
    ...prepared,
    route,
    attack: 'bad registration',
    init: { method: 'POST', body, headers: { 'Content-Type': 'application/json' } },
  }))
}

/** Token requests the OAuth server must refuse: codes and refresh tokens that are none. */
function badTokenRequest(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  if (`${route.method} ${route.path}` !== 'POST /oauth/token') return null
  const prepared = requestFor(route, world)
  const client_id = world.oauth.clientId
  const secret = fc.oneof(wild, fc.constantFrom('a:b:c', `${world.owner.userId}:x:y`, '::'))
  const fields = fc.oneof(
    fc.tuple(secret, wild).map(([code, code_verifier]) => ({
      grant_type: 'authorization_code',
      code,
      code_verifier,
      redirect_uri: 'http://127.0.0.1:7777/callback',
      client_id,
    })),
    secret.map((refresh_token) => ({ grant_type: 'refresh_token', refresh_token, client_id })),
    wild
      .filter((g) => !['authorization_code', 'refresh_token'].includes(g))
      .map((grant_type) => ({ grant_type, client_id })),
    secret.map((refresh_token) => ({ grant_type: 'refresh_token', refresh_token })),
    // A client named by a metadata document's URL the service must not fetch.
    fc
      .oneof(
        fc.constantFrom(
          'https://127.0.0.1/c.json',
          'https://localhost/c.json',
          'https://[::1]/c.json',
          'https://2130706433/c.json',
          'https://127.1/c.json',
          'https://169.254.169.254/latest',
          'https://10.0.0.1/c.json',
          'https://printer.local/c.json',
          'http://client.example.com/c.json',
        ),
        wild.map((w) => `https://${w}/c.json`),
      )
      .map((client_id) => ({ grant_type: 'authorization_code', client_id })),
    // The CLI's grants: a device code that is none, another client's, or none at all.
    fc
      .tuple(fc.oneof(wild, fc.constant('')), fc.oneof(fc.constant(client_id), wild))
      .map(([device_code, client]) => ({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code,
        client_id: client,
      })),
    // An access token that is none (or an API key, or a refresh token) for a key.
    fc
      .tuple(
        fc.oneof(secret, fc.constant(world.owner.key)),
        fc.constantFrom(
          'urn:ietf:params:oauth:token-type:access_token',
          'urn:ietf:params:oauth:token-type:refresh_token',
          '',
        ),
        fc.constantFrom('urn:canvas:params:oauth:token-type:api-key', 'api-key', ''),
      )
      .map(([subject_token, subject_token_type, requested_token_type]) => ({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token,
        subject_token_type,
        requested_token_type,
      })),
  )
  return fields.map((f) => ({
    ...prepared,
    route,
    attack: 'bad token request',
    init: {
      method: 'POST',
      body: new URLSearchParams(f).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    },
  }))
}

/** Device sign-ins the server must refuse: a client that is none, or scopes it does not have. */
function badDeviceAuthorization(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  if (`${route.method} ${route.path}` !== 'POST /oauth/device_authorization') return null
  const prepared = requestFor(route, world)
  const fields = fc.oneof(
    fc
      .oneof(wild, fc.constantFrom('', 'https://client.example.com/c.json', 'https://10.0.0.1/c'))
      .map((client_id) => ({ client_id })),
    fc
      .oneof(fc.constantFrom('canvas:admin', 'openid', 'canvas:read canvas:delete'), wild)
      .filter((scope) => !/^(\s*canvas:(read|write)\s*)*$/.test(scope))
      .map((scope) => ({ client_id: world.oauth.clientId, scope })),
  )
  return fields.map((f) => ({
    ...prepared,
    route,
    attack: 'bad device authorization',
    init: {
      method: 'POST',
      body: new URLSearchParams(f).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    },
  }))
}

/** A correctly signed upload URL, sent bytes that are not the content it was signed for. */
function wrongBytes(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  if (`${route.method} ${route.path}` !== 'PUT /_storage/*') return null
  return fc.uint8Array({ maxLength: 4096 }).map((bytes) => ({
    path: world.uploadUrl,
    route,
    attack: 'wrong bytes under a valid signature',
    init: { method: 'PUT', body: bytes },
  }))
}

/** A path parameter that cannot name anything: traversal, NUL, unicode, too long. */
function badParam(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  const params = route.path.match(/:\w+/g)
  if (!params && !route.path.endsWith('*')) return null
  const prepared = requestFor(route, world)
  const raw = fc
    .oneof(
      wild.map(percentEncode),
      fc.constantFrom(
        '%ZZ',
        '%00',
        '..%2F..%2Fetc%2Fpasswd',
        '%2e%2e%2f',
        'a'.repeat(70),
        '0',
        '-1',
      ),
      // `.` and `..` segments are resolved by the URL parser before any route sees them.
    )
    .filter((v) => !/^(\.|%2e){1,2}$/i.test(v))
  return fc.tuple(raw, fc.nat(Math.max(0, (params?.length ?? 1) - 1))).map(([value, which]) => {
    let path: string
    if (params) {
      // Rebuild from the template so exactly one parameter is hostile.
      const chosen = params[which]
      // With its pattern, when it has one (`:path{.+}`).
      path = route.path.replace(new RegExp(`${chosen}(\\{[^}]*\\})?`), value)
      path = requestFor({ ...route, path }, world).path
    } else {
      path = prepared.path.replace(/[^/]+$/, value)
    }
    return { ...prepared, path, route, attack: `bad ${params?.[which] ?? 'key'}` }
  })
}

/** Query strings the contract bounds: list paging and filters, the download switch. */
function badQuery(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  const prepared = requestFor(route, world)
  const queries: Record<string, fc.Arbitrary<string>> = {
    'GET /v1/canvases': fc.oneof(
      fc.constantFrom('limit=0', 'limit=101', 'limit=-1', 'limit=1e3', 'offset=-5', 'offset=x'),
      fc.constantFrom('visibility=everyone', 'ext=.txt', 'ext=..%2F', 'limit=%00', 'limit=%ZZ'),
      wild.map((w) => `limit=${percentEncode(w)}x`),
      // Cursors it never gave, and a cursor beside an offset.
      fc.constantFrom('cursor=', 'cursor=%00', 'cursor=Yy4x', 'cursor=YQ&offset=1', 'cursor=a=b'),
      wild.map((w) => `cursor=${percentEncode(w)}`),
    ),
    'GET /v1/canvases/:id/versions': fc.oneof(
      fc.constantFrom('limit=0', 'limit=1001', 'cursor=di4w', 'cursor=%2F', 'limit=1&limit=2'),
      wild.map((w) => `cursor=${percentEncode(w)}x`),
    ),
    'GET /v1/canvases/:id/content': fc.constantFrom('dl=2', 'dl=yes', 'dl=%00', 'dl=1&dl=x'),
    // A search: a query with nothing to search for, or malformed; its paging.
    'GET /v1/search': fc.oneof(
      fc.constantFrom('q=', 'q=%22', 'q=*', 'q=%00', 'q=(%20)', 'q=%22a%22%22', 'q=a&limit=51'),
      fc.constantFrom(`q=${'a'.repeat(201)}`, 'q=a&cursor=czo1', 'q=a&cursor=%FF', 'q=a&limit=0'),
      fc.constantFrom('q=%7F', 'q=a%01b', 'q=NEAR(%22', 'q=%E2%80%AE%22'),
      wild.map((w) => `q=a&cursor=${percentEncode(w)}x`),
      wild.map((w) => `q=${percentEncode(w.replace(/[\p{L}\p{N}\p{M}]/gu, ''))}%22`),
    ),
    // The audit log's paging and filters, through the API and its page alike.
    ...Object.fromEntries(
      ['GET /v1/audit', 'GET /settings/activity'].map((route) => [
        route,
        fc.oneof(
          fc.constantFrom(
            'limit=0',
            'limit=101',
            'limit=x',
            'action=canvas.exploded',
            'action=%00',
          ),
          fc.constantFrom(
            'actor=%00',
            'target=..%2F',
            'target=a%20b',
            'cursor=YS54LjE',
            'cursor=%FF',
          ),
          fc.constantFrom(`actor=${'a'.repeat(255)}`, `target=${'a'.repeat(65)}`),
          wild.map((w) => `cursor=${percentEncode(w)}x`),
          wild.map((w) => `action=${percentEncode(w)}x`),
        ),
      ]),
    ),
    // The diff of two versions: each must be one the canvas has.
    'GET /c/:id/diff': fc.oneof(
      fc.constantFrom('from=0&to=1', 'from=1&to=99', 'from=-1&to=1', 'from=1.0&to=1', 'to=1'),
      fc.constantFrom('from=1e0&to=1', 'from=%00&to=1', 'from=01&to=1', 'from=&to='),
      wild.filter((w) => w !== '1').map((w) => `from=${percentEncode(w)}&to=1`),
      // How it is shown: one of three names.
      fc.constantFrom('view=Split', 'view=split%00', 'view=%E2%80%AE'),
      wild.map((w) => `from=1&to=1&view=${percentEncode(w)}x`),
    ),
    'GET /v1/canvases/:id/versions/:version': fc.constantFrom('dl=2', 'dl=%0d%0a'),
    // A wait for comments: from a time the API writes, for 1 to 60 seconds.
    ...Object.fromEntries(
      ['GET /v1/canvases/:id/comments/wait', 'GET /c/:id/comments/wait'].map((route) => [
        route,
        fc.oneof(
          fc.constantFrom('timeout_s=0', 'timeout_s=61', 'timeout_s=1e1', 'timeout_s=%00'),
          fc.constantFrom('since=yesterday', 'since=2026-13-45T00:00:00Z', 'since=%00'),
          fc.constantFrom('since=2026-11-28T12:00:00%2B01:00', 'since=1764331200000'),
          wild.map((w) => `timeout_s=${percentEncode(w)}x`),
          wild.map((w) => `since=${percentEncode(w)}x`),
        ),
      ]),
    ),
    // Readership's period: a whole number of days from 1 to 90 (the page offers 7, 30 and 90).
    ...Object.fromEntries(
      ['GET /v1/canvases/:id/views', 'GET /v1/workspaces/:workspace_id/views'].map((route) => [
        route,
        fc.oneof(
          fc.constantFrom('days=0', 'days=91', 'days=1e1', 'days=7.0', 'days=-1', 'days=%00'),
          fc.constantFrom('days=', 'days=0007x', `days=${'9'.repeat(12)}`, 'days=%E2%80%AE7'),
          wild.map((w) => `days=${percentEncode(w)}x`),
        ),
      ]),
    ),
    'GET /c/:id/readers': fc.oneof(
      fc.constantFrom('days=5', 'days=0', 'days=91', 'days=07', 'days=%00', 'days=30%20'),
      wild.map((w) => `days=${percentEncode(w)}x`),
    ),
    // An authorization request whose app or redirect URI cannot be trusted: refused on the page,
    // never sent on anywhere (an open redirect).
    'GET /oauth/authorize': fc
      .oneof(
        fc.constantFrom(
          'https://evil.example/callback',
          'http://evil.example/callback',
          'http://127.0.0.1:7777/other',
          'http://localhost.evil.example:7777/callback',
          'javascript:alert(1)',
          '',
        ),
        wild,
      )
      .map((redirect) => {
        const url = new URL(world.oauth.authorize)
        url.searchParams.set('redirect_uri', redirect)
        return url.search.slice(1)
      })
      .chain((query) =>
        fc.oneof(
          fc.constant(query),
          wild.map((id) => `${query}&client_id=${percentEncode(id)}x`),
        ),
      ),
    'GET /share/:token/content': fc.constantFrom('dl=2', 'dl=%E2%80%AE'),
    // Frames: the signature's fields forged, malformed or given twice.
    ...Object.fromEntries(
      [
        'GET /_frame/:id/:version',
        'GET /_frame/:id/:version/raw',
        'GET /_frame/:id/:pair/changes',
      ].map((route) => [
        route,
        fc.oneof(
          fc.constantFrom(
            `g=p&exp=9999999999&app=${encodeURIComponent(ORIGIN)}&sig=${'0'.repeat(64)}`,
            `g=o.${'A'.repeat(20)}&exp=9999999999&app=x&sig=00`,
            `g=s.${world.token}&exp=abc&app=x&sig=00`,
            'g=p&g=p&exp=1&exp=2',
            'g=%00&exp=99999999999999999999&sig=',
            'g=x.y&exp=-1&dl=1',
          ),
          fc
            .tuple(wild, wild)
            .map(
              ([g, sig]) => `g=${percentEncode(g)}&exp=9999999999&app=x&sig=${percentEncode(sig)}`,
            ),
        ),
      ]),
    ),
  }
  const query = queries[`${route.method} ${route.path}`]
  if (!query) return null
  return query.map((q) => ({
    ...prepared,
    path: `${prepared.path.split('?')[0]}?${q}`,
    route,
    attack: 'bad query',
  }))
}

/** A method the path does not answer. */
function wrongMethod(route: Route, world: World): fc.Arbitrary<Hostile> {
  const prepared = requestFor(route, world)
  const taken = new Set(ROUTES.filter((r) => r.path === route.path).map((r) => r.method))
  const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !taken.has(m as never))
  return fc.constantFrom(...others).map((method) => ({
    ...prepared,
    route,
    attack: `method ${method}`,
    init: { method, body: method === 'GET' ? undefined : 'x' },
  }))
}

/** Headers that must be refused: a non-JSON type on a JSON route, a junk Authorization. */
function badHeader(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  const prepared = requestFor(route, world)
  if (route.auth === 'key') {
    const junk = fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((s) => s.replace(/[\r\n\0]/g, '')),
      fc.constantFrom('Bearer svc_', 'Bearer svc_' + 'a'.repeat(500), 'bearer  ', 'Bearer \u00ff'),
    )
    return junk.map((value) => ({
      ...prepared,
      route,
      attack: 'junk Authorization',
      init: {
        ...prepared.init,
        key: undefined,
        headers: { ...(prepared.init.headers as {}), Authorization: value },
      },
    }))
  }
  return null
}

/** The comment posts of a link's readers and of the owner's page, which take an Idempotency-Key. */
const POST_KEY_ROUTES = new Set(
  ['/share/:token', '/s/:token', '/c/:id'].flatMap((base) => [
    `POST ${base}/comments`,
    `POST ${base}/comments/:comment_id/replies`,
  ]),
)

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((n) => String.fromCharCode(n)),
})
// Headers cannot carry NUL, CR or LF, and trim spaces and tabs at either end.
const control = fc.constantFrom(
  '\u0001',
  '\u0008',
  '\t',
  '\u000b',
  '\u001b',
  '\u001f',
  '\u007f',
  'é',
)
/** Idempotency-Key values no write may take, as a header carries them. */
export const badIdempotencyKeys = fc.oneof(
  fc.constantFrom('', ' ', '\t'),
  fc
    .string({ minLength: 256, maxLength: 600, unit: 'binary-ascii' })
    .map((s) => s.replace(/[\0\r\n]/g, 'x').replace(/^\s|\s$/g, 'x')),
  fc.tuple(printable, control, printable).map(([a, c, b]) => `x${a}${c}${b}x`),
)

/** An Idempotency-Key no write may take: empty, too long, or with a character not printable ASCII. */
function badIdempotencyKey(route: Route, world: World): fc.Arbitrary<Hostile> | null {
  // A read takes none, even one that needs the write scope; of the routes without an API key,
  // the posts of comments and replies take one.
  const keyed = route.auth === 'key' && route.scope === 'write' && route.method !== 'GET'
  if (!keyed && !POST_KEY_ROUTES.has(`${route.method} ${route.path}`)) return null
  const prepared = requestFor(route, world)
  return badIdempotencyKeys.map((value) => ({
    ...prepared,
    route,
    attack: 'bad Idempotency-Key',
    init: {
      ...prepared.init,
      headers: { ...(prepared.init.headers as {}), 'Idempotency-Key': value },
    },
  }))
}

/** Every hostile request the generators can make, for each of `routes` (all those of the table). */
export function hostileRequests(world: World, routes: Route[] = ROUTES): fc.Arbitrary<Hostile> {
  const perRoute = routes.map((route) => {
    const makers = [
      badJsonBody,
      badRegistration,
      badTokenRequest,
      badDeviceAuthorization,
      badMultipart,
      badForm,
      wrongBytes,
      badParam,
      badQuery,
      badHeader,
      badIdempotencyKey,
    ]
      // A CORS preflight answers the same headers for any address of its shape, and never
      // content or a change: only a wrong method is hostile to it.
      .map((make) => (route.method === 'OPTIONS' ? null : make(route, world)))
      .filter((a): a is fc.Arbitrary<Hostile> => a !== null)
    return fc.oneof(wrongMethod(route, world), ...makers)
  })
  // Any of them may also carry a database bookmark that is not one: ignored, it changes nothing.
  return fc
    .tuple(fc.oneof(...perRoute), fc.option(junkBookmark, { nil: undefined }))
    .map(([hostile, bookmark]) =>
      bookmark === undefined
        ? hostile
        : {
            ...hostile,
            init: {
              ...hostile.init,
              headers: { ...(hostile.init.headers as {}), 'x-d1-bookmark': bookmark },
            },
          },
    )
}

/** Bookmark-like values D1 never gave: a header of any printable text, or one digit wrong. */
const junkBookmark = fc.oneof(
  fc
    .string({ maxLength: 300, unit: 'binary-ascii' })
    .map((s) => s.replace(/[\0\r\n]/g, 'x').trim()),
  fc.constantFrom(
    'first-primary',
    '00000000-00000001-00000000-0000000000000000000000000000000g',
    'ffffffff-ffffffff-ffffffff-ffffffffffffffffffffffffffffffff-',
  ),
)
