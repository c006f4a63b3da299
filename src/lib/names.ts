// Names that someone chooses and others read: an OAuth app's name on the consent page and in
// Settings, a visitor's name on a comment. Characters that change the direction of the text after
// them, or that show nothing (bidi embeddings, overrides and isolates, zero-width spaces and
// joiners, the byte-order mark: Unicode's format characters), and line and paragraph separators,
// let such a name pass for another or rearrange the page around it; they are refused where the
// name is given, and a name shown is still isolated from the text beside it (`<bdi>`).

const HIDDEN = /[\p{Cf}\p{Zl}\p{Zp}]/u

/** The longest name an OAuth app may give itself. */
export const MAX_APP_NAME = 100

export const HIDDEN_CHARACTERS =
  'must not contain invisible or direction-changing characters (bidi controls, zero-width characters)'

/** What is wrong with a name shown to others, or null. */
export function shownNameProblem(name: string): string | null {
  return HIDDEN.test(name) ? HIDDEN_CHARACTERS : null
}

/** What is wrong with an OAuth app's name, or null. */
export function appNameProblem(name: string): string | null {
  if (name.length > MAX_APP_NAME) return `must be at most ${MAX_APP_NAME} characters`
  return shownNameProblem(name)
}

/** The part of an email before its @: what stands for a person who chose no display name. */
export function localPart(email: string): string {
  const at = email.indexOf('@')
  return at === -1 ? email : email.slice(0, at)
}

/** The name people outside the workspace know a person by: never their email. */
export const publicName = (user: { email: string; displayName: string | null }) =>
  user.displayName ?? localPart(user.email)
