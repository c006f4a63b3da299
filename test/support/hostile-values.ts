import fc from 'fast-check'

// The values a hostile request is made of: text no validator should trust (arbitrary code points,
// lone surrogates, NUL and other control characters, traversal, injection), and for each field
// of the API, values its rule refuses.

const CONTROL = ['\u0000', '\n', '\r', '\r\n', '\t', '\u001b', '\u007f', '\u0008']
const EDGES = ['\u202e', '\u200b', '\ufeff', '\ud800', '\udfff', '𝕏', 'e\u0301', '\uffff', '\u2028']
const TRAVERSAL = ['../', '..\\', '%2e%2e%2f', '/etc/passwd', '..%00', '....//', '%c0%ae%c0%ae/']
const INJECTION = ['"; filename=evil.exe', "'; DROP TABLE canvases; --", '<script>x</script>']

/** Any text: arbitrary code points (lone surrogates too) mixed with the pieces above. */
export const wild = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom(...EDGES, ...TRAVERSAL, ...INJECTION),
    ),
    { maxLength: 5 },
  )
  .map((parts) => parts.join(''))

// Pieces of paths that a file system or a terminal takes badly, and plain ones to mix them with.
const PATH_PIECES = [
  ...['a', 'A', 'b', 'x.html', '\u00e9', 'e\u0301', '\u00c9', '\u00df', 'SS', '\u03c2', '\u03c3'],
  ...['/', '.', '..', '\\', ' ', ':', '\u00a0', '\u200b', '\ufeff'],
  ...['con', 'CON', 'aux', 'nul.txt', 'Lpt1', 'com9', 'com\u00b9', 'com0', '.html', '.'],
  ...['\u0000', '\u001b', '\u007f', '\u0085', '\u009b', '\u009f', '\u00a0'],
  ...['\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\ud800', '\udfff'],
]

/** Text shaped like a site's path, hostile more often than not. */
export const sitePath = fc
  .array(fc.oneof(fc.constantFrom(...PATH_PIECES), wild), { maxLength: 8 })
  .map((parts) => parts.join(''))

/** Lists of short paths from few letters, so that two of them often collide in some way. */
export const sitePathList = fc.array(
  fc
    .array(fc.constantFrom('a', 'A', 'b', '\u00e9', 'e\u0301', '/', '.txt', 'con', ' '), {
      minLength: 1,
      maxLength: 4,
    })
    .map((parts) => parts.join('')),
  { minLength: 1, maxLength: 6 },
)

/** Every byte of the UTF-8 (lone surrogates become U+FFFD) as %XX: always a valid URL part. */
export const percentEncode = (text: string) =>
  [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')

/** Text that cannot end a multipart header's quoted value early. */
export const quoteless = wild.map((s) => s.replace(/["\\\r\n]/g, ''))

/** Text with a control character in it: never a valid title, name, ext or mime. */
export const withControl = fc
  .tuple(wild, fc.constantFrom(...CONTROL), wild)
  .map(([a, c, b]) => a + c + b)

export const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  // Not strings: an array of strings could name a valid scope or event by chance.
  fc.array(fc.oneof(fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
)

export const huge = (min: number) =>
  fc.oneof(
    fc.string({ unit: 'binary', minLength: min + 1, maxLength: min + 40 }),
    fc.constantFrom('x'.repeat(min + 1), '\u00e9'.repeat(300_000)),
  )

export const badTitle = fc.oneof(fc.constant(''), withControl, huge(200), wrongType)
export const badExt = fc.oneof(
  fc.constant(''),
  fc.constantFrom('.txt', 'TXT', 'tar.gz', 'a'.repeat(17), '../../etc', 'txt\u0000', 'ｔｘｔ'),
  wild.filter((s) => !/^[a-z0-9]{1,16}$/.test(s)),
  wrongType,
)
export const badId = fc.oneof(
  fc.constant(''),
  wild.filter((s) => !/^[A-Za-z0-9]{1,64}$/.test(s)),
  fc.constant('a'.repeat(65)),
  wrongType,
)
export const badSha = fc.oneof(
  fc.constant('A'.repeat(64)),
  fc.constant('a'.repeat(63)),
  wild.filter((s) => !/^[0-9a-f]{64}$/.test(s)),
  wrongType,
)
export const badSize = fc.oneof(
  fc.integer({ max: -1 }),
  fc.constantFrom(0.5, 1e300, Number.MAX_SAFE_INTEGER + 2, -0.1),
  fc.string(),
  fc.constant(null),
)
export const badMime = fc.oneof(
  fc.constant(''),
  withControl,
  fc.constantFrom('text/html\r\nX-Injected: 1', 'no-slash', 'a/b/c', 'x/'.padEnd(300, 'y')),
  wrongType,
)
export const badEmail = fc.oneof(
  fc.constant(''),
  fc.constantFrom('no-at-sign', '@example.com', 'a@', `${'a'.repeat(250)}@example.com`),
  // Inside the address: one at either end would be trimmed away, leaving a valid one.
  withControl.map((s) => `x${s}x@example.com`),
  wrongType,
)

/**
 * Paths no item of a site may have: absolute, climbing, empty segments, control characters (C1
 * too), bidirectional controls, and names Windows cannot hold (a drive or stream `:`, a device, a
 * trailing dot or space).
 */
export const badPath = fc.oneof(
  fc.constantFrom('', '/index.html', 'a//b', './a', 'a/.', 'a/..', '../x', 'a/../../x', 'a\\b'),
  fc.constantFrom('a/', '..', '.', 'x'.repeat(513), '\u00e9'.repeat(257), 'a\ud800b', 'C:\\x'),
  fc.constantFrom('a\u009b31mb.txt', 'invoice\u202etxt.exe', 'a\u2066b', 'a\u200eb', 'x\u0085'),
  fc.constantFrom('con', 'aux.txt', 'LPT1.log', 'docs/Nul', 'com9.tar.gz', 'CON .txt', 'lpt\u00b2'),
  fc.constantFrom('a.', 'a ', 'a./b.html', 'docs /a.html', 'C:x.html', 'a.html:evil', ':'),
  withControl,
  wild.filter((s) => s.startsWith('/') || s.split('/').includes('..') || s.includes('\\')),
  wrongType,
)

/**
 * Lists of valid paths that one file system or another takes for fewer files: equal once case is
 * folded or Unicode normalized, or a file beside a folder of its name in another case.
 */
const COLLIDING_PATHS: string[][] = [
  ['A.html', 'a.html'],
  ['\u00e9.html', 'e\u0301.html'],
  ['A', 'a/b'],
  ['a/b', 'A'],
  ['docs/Index.html', 'x.css', 'DOCS/index.HTML'],
  ['stra\u00dfe.txt', 'STRASSE.txt'],
  ['\u03c3.txt', '\u03c2.txt'],
  ['Caf\u00e9/a.txt', 'cafe\u0301'],
]
export const collidingPaths = fc.constantFrom(...COLLIDING_PATHS)

/** Item lists the API's schema refuses: of the wrong shape, empty, or holding a bad path. */
export const badItems = fc.oneof(
  fc.constant([]),
  wrongType.filter((v) => !Array.isArray(v)),
  badPath.map((path) => [{ path, file_id: 'abc' }]),
  fc.constant([{ path: 'a.html', file_id: 'abc', extra: 1 }]),
  fc.constant([{ path: 'a.html' }]),
)

/** Item lists of the right shape that a site cannot be: a path twice, or two that collide. */
export const ruleRefusedItems: readonly unknown[] = [
  [
    { path: 'a.html', file_id: 'abc' },
    { path: 'a.html', file_id: 'abd' },
  ],
  ...COLLIDING_PATHS.map((paths) => paths.map((path) => ({ path, file_id: 'abc' }))),
]

/**
 * A name shown to others that passes for another or turns the text around it: bidi controls,
 * zero-width characters, an email address (lib/names.ts).
 */
export const badShownName = fc.oneof(
  fc
    .tuple(
      wild,
      fc.constantFrom(
        '\u202e',
        '\u202d',
        '\u2066',
        '\u2069',
        '\u200e',
        '\u200b',
        '\u200d',
        '\ufeff',
        '\u2028',
      ),
      wild,
    )
    .map(([a, c, b]) => `n${a}${c}${b}n`),
  fc.constantFrom('Ada\u202eadmin', 'Ada\u200b'),
)

/** The same, and a name that reads as a member's (an email address): for people, not apps. */
export const badPersonName = fc.oneof(
  badShownName,
  fc.constantFrom('alice@example.com', 'x@y', 'alicekey@owner'),
)

/** What no workspace may be named: empty, too long, with controls, or passing for another. */
export const badWorkspaceName = fc.oneof(
  fc.constantFrom('', '   '),
  badShownName,
  withControl,
  // Letters at both ends: the name is trimmed, and a long one with spaces there could be short.
  huge(101).map((h) => `k${h}k`),
  wrongType,
)

/** What no role is. */
export const badRole = fc.oneof(
  fc.constantFrom('', 'Owner', 'superuser', 'admin ', 'viewer,editor'),
  wrongType,
)
