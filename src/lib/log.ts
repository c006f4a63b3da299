// The Worker's one log sink: each line one JSON object (observability indexes its fields), every
// error told by `errorText`, so no line can carry what an error's message holds but must not be
// logged. Drizzle wraps a statement run outside a batch in an error whose message is the SQL with
// its bound values (hashes of passwords, sessions and keys among them): its cause, D1's own
// error, is what is told instead.

type Fields = Record<string, unknown>

export function logInfo(fields: Fields) {
  console.log(JSON.stringify({ level: 'info', ...fields }))
}

export function logError(fields: Fields, err?: unknown) {
  const error =
    err === undefined
      ? {}
      : { message: errorText(err), ...(err instanceof Error ? { stack: stackOf(err) } : {}) }
  console.error(JSON.stringify({ level: 'error', ...fields, ...error }))
}

/** An error's message, without the query text and values a database error may hold. */
export function errorText(err: unknown): string {
  const shown = withoutQuery(err)
  return shown instanceof Error ? shown.message : String(shown)
}

function stackOf(err: Error): string | undefined {
  const shown = withoutQuery(err)
  return shown instanceof Error ? shown.stack : undefined
}

/** A failed query's own error (its `cause`) rather than the wrapper that quotes the query. */
function withoutQuery(err: unknown): unknown {
  const wrapped =
    err instanceof Error &&
    'query' in err &&
    'params' in err &&
    err.message.startsWith('Failed query')
  if (!wrapped) return err
  return err.cause ?? new Error('a database query failed')
}
