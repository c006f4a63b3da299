import { ADMIN, OWNER, WRITE } from '../http/actor/need'

// What the web app's actions need, each stated once: the route that does the thing takes it as
// its access step's need, and a page shows the thing's control only to whom it allows (`may`).
// A viewer is never shown a control that would refuse them.

/** Publishing: the upload form, and the routes its script and the form post to. */
export const PUBLISHING = WRITE
/** A canvas's actions: share, visibility, permanence, delete, a new version. */
export const CHANGING = WRITE
/** The workspace's members, invites, settings, webhooks and activity. */
export const MANAGING = ADMIN
/** Deleting the workspace. */
export const OWNING = OWNER
