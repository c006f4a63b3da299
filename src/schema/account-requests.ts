import * as z from 'zod/mini'
import { SCOPES, id, keyName, personName, wholeCharacters } from './requests'

// What a person sends of their own account: signing up and in, their password, their API keys and
// the name others see. Apart from requests.ts: only the pages and routes of accounts load them.

export const MIN_PASSWORD_LENGTH = 8

export const credentialsBody = z.strictObject({
  email: z.pipe(
    z.string().check(z.trim(), z.toLowerCase(), z.maxLength(254, 'must be at most 254 characters')),
    z.email('must be an email address'),
  ),
  password: z
    .string()
    .check(
      z.minLength(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`),
      z.maxLength(256, 'must be at most 256 characters'),
      wholeCharacters,
    ),
  // The first account of a deployment: the token of its one-time setup link.
  setup_token: z.optional(z.string().check(z.maxLength(256, 'must be at most 256 characters'))),
  // An invite's token (the end of its /join/ link): admits the signup and joins its workspace.
  invite: z.optional(z.string().check(z.maxLength(256, 'must be at most 256 characters'))),
})

/** A new password: the rule of signup's. */
export const newPassword = credentialsBody.shape.password

export const passwordChangeBody = z.strictObject({
  // Empty for an account that has none yet (made by single sign-on).
  current: z.string().check(z.maxLength(256, 'must be at most 256 characters')),
  password: newPassword,
})

export const loginBody = z.strictObject({
  email: z.string().check(z.maxLength(254, 'must be at most 254 characters')),
  password: z.string().check(z.maxLength(256, 'must be at most 256 characters')),
})

export const createKeyBody = z.strictObject({
  name: keyName,
  // The workspace the key acts in: one of the person's; the session's current one by default.
  workspace_id: z.optional(id),
  scopes: z.optional(
    z
      .array(z.enum(SCOPES, 'must be read or write'))
      .check(z.minLength(1, 'must name at least one scope')),
  ),
})

/** A member's display name; null (or empty, in a form) goes back to the part of the email before @. */
export const displayNameBody = z.strictObject({ display_name: z.nullable(personName) })
