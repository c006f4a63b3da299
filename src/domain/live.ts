/** SQL condition for a canvas that has not expired; bind `now` once per use. */
export const LIVE = '(c.expires_at IS NULL OR c.expires_at > ?)'
