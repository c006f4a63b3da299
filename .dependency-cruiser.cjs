// The layers, bottom to top: lib <- schema, storage, render, live <- domain <- http <- api, web <- app.
// (live, the canvases' Durable Object, is reached by domain code only through lib's LiveNotifier.)
// Each imports only the layers below it. The CLI shares nothing with the Worker but src/lib, and
// the types of the API's shapes in src/schema (`import type`: no code of them ships in the CLI);
// the browser code under assets/ likewise.
// `npm run lint` runs these rules; a wrong-way import fails CI.

const layer = (name, below) => ({
  name: `${name}-imports-downward`,
  comment: `src/${name} may import only ${below.length ? below.map((l) => `src/${l}`).join(', ') : 'nothing else in src'} and itself`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: {
    path: '^src/',
    pathNot: [`^src/${name}/`, ...below.map((l) => `^src/${l}/`)],
  },
})

module.exports = {
  forbidden: [
    layer('lib', []),
    layer('schema', ['lib']),
    layer('storage', ['lib']),
    layer('render', ['lib']),
    layer('live', ['lib']),
    layer('domain', ['schema', 'storage', 'render', 'lib']),
    layer('http', ['domain', 'schema', 'storage', 'render', 'live', 'lib']),
    layer('api', ['http', 'domain', 'schema', 'storage', 'render', 'live', 'lib']),
    layer('web', ['http', 'domain', 'schema', 'storage', 'render', 'live', 'lib']),
    {
      name: 'cli-shares-only-lib',
      comment: 'the CLI ships on its own: from the Worker it may use only src/lib',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^src/', pathNot: '^src/(lib|schema)/' },
    },
    {
      name: 'cli-takes-only-types-of-schemas',
      comment: 'the CLI takes the types of the API shapes, not their code',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^src/schema/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'assets-share-only-lib',
      comment: 'the browser code runs in the page: from the Worker it may use only src/lib',
      severity: 'error',
      from: { path: '^assets/' },
      to: { path: '^src/', pathNot: '^src/(lib|schema)/' },
    },
    {
      name: 'assets-take-only-types-of-schemas',
      comment: "the browser code takes the types of the API's shapes, not their code",
      severity: 'error',
      from: { path: '^assets/' },
      to: { path: '^src/schema/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-http-below-http',
      comment: 'domain logic stays apart from HTTP: no Hono below src/http',
      severity: 'error',
      from: { path: '^src/(lib|schema|storage|render|live|domain)/' },
      to: { path: 'node_modules/hono/' },
    },
    {
      name: 'no-circular',
      comment: 'a cycle makes the layers meaningless',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: "the runtime's own modules (cloudflare:workers) resolve in workerd, not on disk",
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^cloudflare:' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types', 'workerd', 'worker'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.d.ts'],
    },
  },
}
