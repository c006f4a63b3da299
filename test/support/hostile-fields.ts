import fc from 'fast-check'
import {
  badEmail,
  badExt,
  badId,
  badItems,
  badMime,
  badPath,
  badPersonName,
  badRole,
  badSha,
  badShownName,
  badSize,
  badTitle,
  badWorkspaceName,
  huge,
  ruleRefusedItems,
  wild,
  withControl,
  wrongType,
} from './hostile-values'
import type { World } from './world'

// How each field of a JSON body is made invalid, by route. A field's `schema` values are refused
// by the route's own schema (read off the route: test/security/hostile-generators.test.ts holds
// every value so); `rule` values pass the schema and are refused by a rule after it (a file that
// is not there, a token already taken, an address the service must not call), each one sent to
// the route by that test. A value the route takes must never be here: the hostile test expects
// every request it makes to be refused, so a valid value would fail it by chance.

export type FieldAttack = {
  /** Values the route's schema refuses. */
  schema?: fc.Arbitrary<unknown>
  /** Values the schema lets through that a later rule refuses: few, each checked by a request. */
  rule?: readonly unknown[]
  /** Generated values a pure rule refuses (the public URL rule), with that rule. */
  ruled?: { values: fc.Arbitrary<string>; refused: (value: string) => boolean }
}

/** The arbitrary of every value of `attack`. */
export function valuesOf(attack: FieldAttack): fc.Arbitrary<unknown> {
  const parts = [
    ...(attack.schema ? [attack.schema] : []),
    ...(attack.rule?.length ? [fc.constantFrom(...attack.rule)] : []),
    ...(attack.ruled ? [attack.ruled.values] : []),
  ]
  return fc.oneof(...parts)
}

const bySchema = (schema: fc.Arbitrary<unknown>): FieldAttack => ({ schema })

/** Anything but true or false, where a boolean is asked for. */
const notBoolean = fc.oneof(
  fc.constantFrom('true', 1, 'yes', null),
  wrongType.filter((v) => typeof v !== 'boolean'),
)

// A name that the schema trims: what is refused must survive the trim (letters at both ends).
const kept = (text: fc.Arbitrary<string>) => text.map((t) => `k${t}k`)

const upload = {
  sha256: bySchema(badSha),
  ext: bySchema(badExt),
  // One byte past the largest file: a limit of the deployment's, not of the schema.
  size: { schema: badSize, rule: [5368709121] },
  mime: bySchema(badMime),
  file_id: bySchema(badId),
}

/** The field attacks of every route that takes a JSON body of fields. */
export function fieldAttacks(world: World): Record<string, Record<string, FieldAttack>> {
  const personName = bySchema(fc.oneof(badPersonName, kept(withControl), kept(huge(61)), wrongType))
  const visitorComments = Object.fromEntries(
    ['/share/:token', '/s/:token'].flatMap((base) =>
      ['/comments', '/comments/:comment_id/replies'].map((tail) => [
        `POST ${base}${tail}`,
        { name: personName },
      ]),
    ),
  )
  return {
    'POST /v1/upload/presign': upload,
    'POST /v1/upload/finalize': upload,
    // The web app's upload script: the same fields, and the file's name and canvas on finishing.
    'POST /upload/presign': upload,
    'POST /upload/finish': { ...upload, name: bySchema(wrongType), canvas_id: bySchema(badId) },
    'POST /v1/canvases': {
      file_id: bySchema(badId),
      title: bySchema(badTitle),
      ext: bySchema(badExt),
      // A renderer id of the right shape that names none.
      renderer_id: { schema: fc.oneof(fc.constantFrom('HTML', ''), wrongType), rule: ['nope'] },
      permanent: bySchema(notBoolean),
      items: { schema: badItems, rule: ruleRefusedItems },
      main: bySchema(badPath),
    },
    'PATCH /v1/canvases/:id': {
      title: bySchema(badTitle),
      visibility: bySchema(fc.oneof(fc.constantFrom('Public', 'secret', ''), wrongType)),
      renderer_id: { schema: fc.oneof(fc.constant('pdf2'), wrongType), rule: ['nope'] },
      file_id: bySchema(badId),
      items: { schema: badItems, rule: ruleRefusedItems },
      main: bySchema(badPath),
    },
    'POST /v1/canvases/:id/shares': {
      expires_in: bySchema(
        fc.oneof(fc.constantFrom('0s', '366d', '10y', '1.5h', '-1h', 'forever'), wrongType),
      ),
      password: bySchema(fc.oneof(fc.constantFrom('', 'abc'), huge(256), wrongType)),
      max_views: bySchema(fc.oneof(fc.constantFrom(0, -1, 1_000_001, 1.5), fc.string())),
      // A version the canvas does not have.
      version: { schema: fc.oneof(fc.constantFrom(0, -1, 2.5), fc.string()), rule: [999] },
      // A token already taken.
      token: {
        schema: fc.oneof(fc.constantFrom('short', 'has space!'), withControl, wrongType),
        rule: [world.token],
      },
    },
    'POST /v1/canvases/:id/reviews': {
      version: { schema: fc.oneof(fc.constantFrom(0, -1, 2.5), fc.string()), rule: [999] },
      reviewers: {
        schema: fc.oneof(
          fc.constantFrom('someone@example.com', [''], Array(21).fill('a@example.com')),
          fc.array(fc.oneof(withControl, huge(254)), { minLength: 1, maxLength: 3 }),
          // An empty array names no one, which is valid.
          wrongType.filter((v) => !Array.isArray(v) || v.length > 0),
        ),
        // Someone who is no member, and the one asking.
        rule: [['nobody-here@example.com'], [world.owner.email], [world.other.userId]],
      },
      note: bySchema(fc.oneof(fc.constant(''), huge(2000), wrongType)),
    },
    'POST /v1/reviews/:review_id/decisions': {
      decision: bySchema(
        fc.oneof(
          fc.constantFrom('Approve', 'reject', ''),
          wild.filter((w) => w !== 'approve' && w !== 'request_changes'),
          wrongType,
        ),
      ),
      comment: bySchema(fc.oneof(fc.constant(''), huge(10_000), wrongType)),
    },
    'POST /v1/webhooks': {
      url: {
        schema: fc.oneof(
          fc.constant(''),
          withControl.map((c) => `https://hooks.example.com/${c}`),
          huge(2049).map((h) => `https://hooks.example.com/${h}`),
          wrongType,
        ),
        // Addresses the service must not call, in the spellings a URL parser takes.
        rule: [
          'https://10.0.0.1/',
          'https://169.254.169.254/',
          'https://[::ffff:10.0.0.1]/',
          'https://user:pw@hooks.example.com/',
          'https://intranet/',
          'https://printer.local/',
          'https://hooks.example.com:25/',
          'file:///etc/passwd',
        ],
        // Text that is no URL of a scheme the service calls: whatever follows, a leading `x`
        // cannot begin `https:` or `http:` (a URL parser drops leading spaces, not letters).
        ruled: {
          values: wild.map((w) => `x${w}`),
          refused: (url) => !/^\s*https?:/i.test(url),
        },
      },
      events: bySchema(
        fc.oneof(
          fc.constant([]),
          fc.constant(['canvas.created']),
          fc.constant('canvas.deleted'),
          // No event type has a `!` in it.
          fc.array(
            wild.map((w) => `${w}!`),
            { minLength: 1, maxLength: 3 },
          ),
          wrongType,
        ),
      ),
      exclude_self: bySchema(notBoolean),
    },
    ...visitorComments,
    'POST /auth/keys': {
      name: bySchema(fc.oneof(fc.constant(''), withControl, badShownName, huge(100), wrongType)),
      scopes: bySchema(
        fc.oneof(fc.constant([]), fc.constant(['admin']), fc.constant('read'), wrongType),
      ),
      workspace_id: bySchema(fc.oneof(fc.constantFrom('', 'a/b', '../x'), huge(65), wrongType)),
    },
    'POST /v1/workspaces': { name: bySchema(badWorkspaceName) },
    'PATCH /v1/workspaces/:workspace_id': {
      name: bySchema(badWorkspaceName),
      default_expires_in: bySchema(
        fc.oneof(
          fc.constantFrom('0s', '366d', '1.5h', '-1h', 'forever', '', false),
          // Null keeps new canvases, and JSON writes NaN and the infinities as null.
          wrongType.filter((v) => JSON.stringify(v) !== 'null'),
        ),
      ),
      quota_bytes: bySchema(
        fc.oneof(
          fc.constantFrom(0, -1, 1.5, 2 ** 51, Number.MAX_VALUE, '100', true),
          fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }),
        ),
      ),
    },
    'PATCH /v1/workspaces/:workspace_id/members/:user_id': { role: bySchema(badRole) },
    'POST /v1/workspaces/:workspace_id/invites': {
      role: bySchema(badRole),
      email: bySchema(badEmail),
      expires_in: bySchema(fc.oneof(fc.constantFrom('0s', '31d', '5w', '1.5h', 'soon'), wrongType)),
    },
    'POST /auth/switch': {
      workspace_id: bySchema(fc.oneof(fc.constantFrom('', 'a/b', '../x'), huge(65), wrongType)),
    },
    'POST /auth/signup': {
      email: bySchema(badEmail),
      password: bySchema(fc.oneof(fc.constantFrom('', 'short'), huge(256), wrongType)),
    },
    // Any password but the owner's: a rule, not a shape (what is not theirs is refused).
    'POST /auth/login': {
      password: {
        schema: fc.oneof(huge(256), wrongType),
        rule: ['wrong password'],
        ruled: {
          values: wild,
          refused: (password) => password !== world.owner.password,
        },
      },
    },
  }
}
