import { sql } from 'drizzle-orm'
import { users } from '../storage/schema'

/**
 * A person's name as their workspace shows it, in SQL (users in scope): their display name, else
 * their email's part before the @ (lib/names.ts says the same in code).
 */
export const personName = sql<string>`COALESCE(${users.displayName}, substr(${users.email}, 1, instr(${users.email}, '@') - 1))`
