// Wraps a D1 binding and counts round trips: each statement run on its own, and each batch, is one.

const RUNNERS = new Set(['first', 'all', 'run', 'raw'])
const INNER = Symbol('inner')

export function countingD1(db: D1Database) {
  const counter = { count: 0, statements: 0 }
  const wrapStatement = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === INNER) return target
        if (prop === 'bind') return (...args: unknown[]) => wrapStatement(target.bind(...args))
        const value = Reflect.get(target, prop, target)
        if (typeof prop === 'string' && RUNNERS.has(prop)) {
          return (...args: unknown[]) => {
            counter.count++
            counter.statements++
            return value.apply(target, args)
          }
        }
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  const wrapped = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') return (query: string) => wrapStatement(target.prepare(query))
      if (prop === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          counter.count++
          counter.statements += statements.length
          return target.batch(statements.map((s) => (s as any)[INNER] ?? s))
        }
      }
      if (prop === 'exec') {
        return (query: string) => {
          counter.count++
          return target.exec(query)
        }
      }
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { db: wrapped, counter }
}
