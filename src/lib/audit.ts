// What the audit log records (docs/teams.md#the-audit-log): the actions its events name, and the
// kinds of actor that make them.

export const AUDIT_ACTIONS = [
  'canvas.created',
  'canvas.version_created',
  'canvas.rolled_back',
  'canvas.updated',
  'canvas.visibility_changed',
  'canvas.made_permanent',
  'canvas.deleted',
  'canvas.expired',
  'share.created',
  'share.revoked',
  'comment.deleted',
  'review.requested',
  'review.decided',
  'key.created',
  'key.revoked',
  'oauth.connected',
  'oauth.disconnected',
  'webhook.created',
  'webhook.deleted',
  'member.invited',
  'member.invite_revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'workspace.created',
  'workspace.renamed',
  'workspace.settings_changed',
  'auth.login',
  'auth.login_failed',
  'auth.password_changed',
  'auth.password_reset_link',
  'auth.password_reset',
] as const

export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export const AUDIT_ACTOR_KINDS = ['member', 'key', 'agent', 'visitor', 'system'] as const
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number]
