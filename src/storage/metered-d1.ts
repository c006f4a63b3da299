// Wraps a D1 binding to see every round trip go by (a statement run on its own, or a whole batch,
// is one). The cron sweep meters what it costs: round trips, statements, and the rows D1 reports
// reading and writing, which is what D1 bills. Tests hold routes to their round-trip budget with
// the meter, and make chosen round trips fail with the same interceptor.

export type RoundTrip = { method: string; statements: number }
export type Around = <T>(trip: RoundTrip, run: () => Promise<T>) => Promise<T>

const RUNNERS = new Set(['first', 'all', 'run', 'raw'])
const INNER = Symbol('inner')

/**
 * With `rawFromAll`, a statement's raw() and first() are served by all(): raw() turns its rows into
 * arrays of values in column order, as Drizzle's own batch path does with D1's results, and
 * first() takes the first row (or its one column). Drizzle reads through raw() outside a batch,
 * and only all() tells what D1 read. Column names must then be distinct, which they must be for
 * Drizzle's batches anyway.
 */
export function interceptD1(
  db: D1Database,
  around: Around,
  { rawFromAll = false } = {},
): D1Database {
  const unwrap = (s: D1PreparedStatement) =>
    (s as unknown as Record<symbol, D1PreparedStatement>)[INNER] ?? s
  const wrapStatement = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === INNER) return target
        if (prop === 'bind') return (...args: unknown[]) => wrapStatement(target.bind(...args))
        const value = Reflect.get(target, prop, target)
        if (prop === 'raw' && rawFromAll) {
          return async (...args: unknown[]) => {
            if (args.length > 0) {
              return around({ method: 'raw', statements: 1 }, () => value.apply(target, args))
            }
            const { results } = await around({ method: 'all', statements: 1 }, () => target.all())
            return results.map((row) => Object.values(row))
          }
        }
        if (prop === 'first' && rawFromAll) {
          return async (column?: string) => {
            const { results } = await around({ method: 'all', statements: 1 }, () => target.all())
            const row = (results[0] ?? null) as Record<string, unknown> | null
            if (column === undefined || row === null) return row
            if (!(column in row))
              throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`)
            return row[column]
          }
        }
        if (typeof prop === 'string' && RUNNERS.has(prop)) {
          return (...args: unknown[]) =>
            around({ method: prop, statements: 1 }, () => value.apply(target, args))
        }
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  // The binding and each of its sessions (read replicas) alike: statements and batches go by.
  const wrapClient = <C extends D1Database | D1DatabaseSession>(client: C): C =>
    new Proxy(client, {
      get(target, prop) {
        if (prop === 'prepare') return (query: string) => wrapStatement(target.prepare(query))
        if (prop === 'batch') {
          return (statements: D1PreparedStatement[]) =>
            around({ method: 'batch', statements: statements.length }, () =>
              target.batch(statements.map(unwrap)),
            )
        }
        if (prop === 'exec') {
          return (query: string) =>
            around({ method: 'exec', statements: 1 }, () => (target as D1Database).exec(query))
        }
        if (prop === 'withSession') {
          return (constraint?: string) => wrapClient((target as D1Database).withSession(constraint))
        }
        const value = Reflect.get(target, prop, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  return wrapClient(db)
}

export type D1Meter = {
  roundTrips: number
  statements: number
  rowsRead: number
  rowsWritten: number
}

export function meteredD1(db: D1Database): { db: D1Database; meter: D1Meter } {
  const meter: D1Meter = { roundTrips: 0, statements: 0, rowsRead: 0, rowsWritten: 0 }
  const count = (result: unknown) => {
    const meta = (result as D1Result | null)?.meta
    meter.rowsRead += meta?.rows_read ?? 0
    meter.rowsWritten += meta?.rows_written ?? 0
  }
  const metered = interceptD1(
    db,
    async (trip, run) => {
      meter.roundTrips++
      meter.statements += trip.statements
      const result = await run()
      // run(), all() and each result of a batch carry D1's meta (first() and raw() come by all()).
      if (trip.method === 'batch') (result as D1Result[]).forEach(count)
      else if (trip.method === 'run' || trip.method === 'all') count(result)
      return result
    },
    { rawFromAll: true },
  )
  return { db: metered, meter }
}
