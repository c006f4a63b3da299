import type { OpenApiDocument, Operation, Parameter } from '../../http/openapi'
import { Inline } from '../pages/inline'
import { Layout } from '../pages/layout'

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

/**
 * The API reference for people: every operation of /openapi.json, grouped by tag, with contents
 * beside it (above it on a phone) and an anchor on every heading.
 */
export function ApiDocs({ doc, user }: { doc: OpenApiDocument; user?: { email: string } | null }) {
  const operations = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    METHODS.filter((m) => byMethod[m]).map((method) => ({ path, method, op: byMethod[method] })),
  )
  const tags = [...new Set(operations.map(({ op }) => op.tags[0]))]
  const inTag = (tag: string) => operations.filter(({ op }) => op.tags[0] === tag)
  return (
    <Layout title="API reference" user={user}>
      <div class="docs">
        <nav class="toc" id="contents" aria-label="Contents">
          <p class="toc-title">Contents</p>
          <ul>
            {tags.map((tag) => (
              <li>
                <a href={`#${slug(tag)}`}>{tag}</a>
                <ul>
                  {inTag(tag).map(({ op }) => (
                    <li>
                      <a href={`#${op.operationId}`}>{op.summary}</a>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
            <li>
              <a href="#shapes">Shapes</a>
            </li>
          </ul>
        </nav>
        <div class="docs-body">
          <h1>API reference</h1>
          <p>
            <Inline text={doc.info.description ?? ''} /> Machine-readable:{' '}
            <a href="/openapi.json">/openapi.json</a>; for agents: <a href="/llms.txt">/llms.txt</a>
            . How Canvas works, and how to run it: <a href="/docs/readme">the documentation</a>.
          </p>
          {tags.map((tag) => (
            <section id={slug(tag)} aria-labelledby={`${slug(tag)}-title`}>
              <h2 id={`${slug(tag)}-title`}>
                <Anchor to={slug(tag)} />
                {tag}
              </h2>
              {inTag(tag).map(({ path, method, op }) => (
                <OperationView path={path} method={method} op={op} />
              ))}
            </section>
          ))}
          <section id="shapes" aria-labelledby="shapes-title">
            <h2 id="shapes-title">
              <Anchor to="shapes" />
              Shapes
            </h2>
            {Object.entries(doc.components.schemas).map(([name, schema]) => (
              <div id={`shape-${name}`}>
                <h3>
                  <Anchor to={`shape-${name}`} />
                  {name}
                </h3>
                <Fields schema={schema as Schema} />
              </div>
            ))}
          </section>
        </div>
      </div>
    </Layout>
  )
}

/** A heading's own link, to copy or share: shown beside it. */
function Anchor({ to }: { to: string }) {
  return (
    <a class="anchor" href={`#${to}`} aria-label="Link to this section">
      #
    </a>
  )
}

function OperationView({ path, method, op }: { path: string; method: string; op: Operation }) {
  const body = op.requestBody?.content['application/json']?.schema as Schema | undefined
  return (
    <article id={op.operationId} aria-labelledby={`${op.operationId}-title`}>
      <h3 id={`${op.operationId}-title`}>
        <Anchor to={op.operationId} />
        <code>
          {method.toUpperCase()} {path}
        </code>{' '}
        {op.summary}
      </h3>
      {op.description && (
        <p>
          <Inline text={op.description} />
        </p>
      )}
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
              <strong>{status}</strong> <Inline text={answer.description} />
              {schema && (
                <>
                  {' '}
                  · <TypeOf schema={schema} />
                </>
              )}
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
            <td>{p.description ? <Inline text={p.description} /> : ruleOf(p.schema as Schema)}</td>
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
            <td>
              <TypeOf schema={field} />
            </td>
            <td>{ruleOf(field)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** A type, a shape of this reference linked to its table. */
function TypeOf({ schema }: { schema: Schema }) {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!
    return <a href={`#shape-${name}`}>{name}</a>
  }
  if (schema.type === 'array' && schema.items?.$ref) {
    return (
      <>
        list of <TypeOf schema={schema.items} />
      </>
    )
  }
  return <>{typeOf(schema)}</>
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
