import type { OpenApiDocument, Operation, Parameter } from '../../http/openapi'
import { Layout } from './layout'

type Schema = {
  $ref?: string
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  enum?: unknown[]
  pattern?: string
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  anyOf?: Schema[]
  format?: string
  const?: unknown
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

/** The API reference for people: every operation of /openapi.json, grouped by tag. */
export function ApiDocs({ doc, user }: { doc: OpenApiDocument; user?: { email: string } | null }) {
  const operations = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    METHODS.filter((m) => byMethod[m]).map((method) => ({ path, method, op: byMethod[method] })),
  )
  const tags = [...new Set(operations.map(({ op }) => op.tags[0]))]
  return (
    <Layout title="API reference" user={user}>
      <div class="docs">
        <h1>API reference</h1>
        <p>
          {doc.info.description} Machine-readable: <a href="/openapi.json">/openapi.json</a>; for
          agents: <a href="/llms.txt">/llms.txt</a>.
        </p>
        <nav aria-label="Sections">
          <ul>
            {tags.map((tag) => (
              <li>
                <a href={`#${slug(tag)}`}>{tag}</a>
              </li>
            ))}
            <li>
              <a href="#shapes">Shapes</a>
            </li>
          </ul>
        </nav>
        {tags.map((tag) => (
          <section id={slug(tag)}>
            <h2>{tag}</h2>
            {operations
              .filter(({ op }) => op.tags[0] === tag)
              .map(({ path, method, op }) => (
                <OperationView path={path} method={method} op={op} />
              ))}
          </section>
        ))}
        <section id="shapes">
          <h2>Shapes</h2>
          {Object.entries(doc.components.schemas).map(([name, schema]) => (
            <div id={`shape-${name}`}>
              <h3>{name}</h3>
              <Fields schema={schema as Schema} />
            </div>
          ))}
        </section>
      </div>
    </Layout>
  )
}

function OperationView({ path, method, op }: { path: string; method: string; op: Operation }) {
  const body = op.requestBody?.content['application/json']?.schema as Schema | undefined
  return (
    <article id={op.operationId}>
      <h3>
        <code>
          {method.toUpperCase()} {path}
        </code>{' '}
        {op.summary}
      </h3>
      {op.description && <p>{op.description}</p>}
      <p class="muted">{authOf(op)}</p>
      {op.parameters && <Parameters list={op.parameters} />}
      {body && (
        <>
          <h4>
            Body{op.requestBody?.content['multipart/form-data'] ? ' (JSON or multipart)' : ''}
          </h4>
          <Fields schema={body} />
        </>
      )}
      <h4>Answers</h4>
      <ul>
        {Object.entries(op.responses).map(([status, answer]) => {
          const schema = answer.content?.['application/json']?.schema as Schema | undefined
          return (
            <li>
              <strong>{status}</strong> {answer.description}
              {schema && <> · {typeOf(schema)}</>}
            </li>
          )
        })}
      </ul>
    </article>
  )
}

function Parameters({ list }: { list: Parameter[] }) {
  return (
    <table class="list">
      <thead>
        <tr>
          <th>Parameter</th>
          <th>In</th>
          <th>Rule</th>
        </tr>
      </thead>
      <tbody>
        {list.map((p) => (
          <tr>
            <td>
              <code>{p.name}</code>
            </td>
            <td>{p.in}</td>
            <td>{p.description ?? ruleOf(p.schema as Schema)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function Fields({ schema }: { schema: Schema }) {
  const properties = Object.entries(schema.properties ?? {})
  if (!properties.length) return <p>{typeOf(schema)}</p>
  return (
    <table class="list">
      <thead>
        <tr>
          <th>Field</th>
          <th>Type</th>
          <th>Rule</th>
        </tr>
      </thead>
      <tbody>
        {properties.map(([name, field]) => (
          <tr>
            <td>
              <code>{name}</code>
              {schema.required?.includes(name) ? '' : ' (optional)'}
            </td>
            <td>{typeOf(field)}</td>
            <td>{ruleOf(field)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function typeOf(schema: Schema): string {
  if (schema.$ref) return schema.$ref.split('/').pop()!
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ')
  if (schema.type === 'array' && schema.items) return `list of ${typeOf(schema.items)}`
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any')
  return schema.format ? `${type} (${schema.format})` : type
}

function ruleOf(schema: Schema): string {
  const rules: string[] = []
  if (schema.enum) rules.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`)
  if (schema.pattern) rules.push(`matches ${schema.pattern}`)
  if (schema.minLength !== undefined) rules.push(`at least ${schema.minLength} characters`)
  if (schema.maxLength !== undefined) rules.push(`at most ${schema.maxLength} characters`)
  if (schema.minimum !== undefined) rules.push(`at least ${schema.minimum}`)
  if (schema.maximum !== undefined) rules.push(`at most ${schema.maximum}`)
  return rules.join('; ')
}

function authOf(op: Operation): string {
  const scheme = Object.keys(op.security[0] ?? {})[0]
  if (scheme === 'apiKey' && op.security.length > 1) {
    return 'Authorization: Bearer <API key, or an OAuth access token>'
  }
  if (scheme === 'apiKey') return 'Authorization: Bearer <API key>'
  if (scheme === 'session') return 'The web session cookie, from this site’s own pages'
  return 'No credentials needed'
}

const slug = (text: string) => text.toLowerCase().replace(/\W+/g, '-')
