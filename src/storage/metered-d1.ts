// Wraps a D1 binding and meters what goes through it: round trips (a statement run on its own, or
// a whole batch, is one), statements, and the rows D1 reports reading and writing, which is what
// D1 bills. The cron sweep logs these; tests hold routes to their round-trip budget with them.

export type D1Meter = {
  roundTrips: number
  statements: number
  rowsRead: number
  rowsWritten: number
}

const RUNNERS = new Set(['first', 'all', 'run', 'raw'])
const INNER = Symbol('inner')

export function meteredD1(db: D1Database): { db: D1Database; meter: D1Meter } {
  const meter: D1Meter = { roundTrips: 0, statements: 0, rowsRead: 0, rowsWritten: 0 }
  const count = (result: unknown) => {
    const meta = (result as D1Result | null)?.meta
    meter.rowsRead += meta?.rows_read ?? 0
    meter.rowsWritten += meta?.rows_written ?? 0
    return result
  }
  const wrapStatement = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === INNER) return target
        if (prop === 'bind') return (...args: unknown[]) => wrapStatement(target.bind(...args))
        const value = Reflect.get(target, prop, target)
        if (typeof prop === 'string' && RUNNERS.has(prop)) {
          return async (...args: unknown[]) => {
            meter.roundTrips++
            meter.statements++
            // first() and raw() give no meta; run() and all() do.
            const result = await value.apply(target, args)
            return prop === 'run' || prop === 'all' ? count(result) : result
          }
        }
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  const wrapped = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') return (query: string) => wrapStatement(target.prepare(query))
      if (prop === 'batch') {
        return async (statements: D1PreparedStatement[]) => {
          meter.roundTrips++
          meter.statements += statements.length
          const results = await target.batch(
            statements.map(
              (s) => (s as unknown as Record<symbol, D1PreparedStatement>)[INNER] ?? s,
            ),
          )
          results.forEach(count)
          return results
        }
      }
      if (prop === 'exec') {
        return (query: string) => {
          meter.roundTrips++
          meter.statements++
          return target.exec(query)
        }
      }
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { db: wrapped, meter }
}
