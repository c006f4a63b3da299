import { Hono } from 'hono'
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  sendTestEvent,
} from '../domain/webhooks/webhooks'
import type { AppEnv } from '../http/context'
import { key } from '../http/actor/steps'
import { ADMIN } from '../http/actor/need'
import { documented } from '../http/route-docs'
import { jsonBody, params } from '../http/validate'
import { createWebhookBody, webhookInPath } from '../schema/workspace-requests'

// /v1/webhooks: where a workspace's events are sent (docs/comments-and-webhooks.md). Every route,
// reads too, needs the `write` scope.
export const webhooks = new Hono<AppEnv>()

webhooks.post(
  '/',
  key(ADMIN),
  jsonBody(createWebhookBody),
  documented({
    summary: 'Create a webhook',
    description:
      'Each event of the workspace named in `events` is POSTed to `url` (https, on a public ' +
      'address), signed with the `secret` this answer holds, and shown only here. With ' +
      '`exclude_self: true`, events caused by the API key or app that made it are not sent to it ' +
      '(an agent listening for comments does not hear its own). At most 20 a workspace.',
    tag: 'Webhooks',
    responses: {
      201: { description: 'The webhook and its secret.', schema: 'createdWebhook' },
    },
    errors: ['webhook_limit'],
  }),
  async (c) => c.json(await createWebhook(c.var.svc, c.var.actor, c.req.valid('json')), 201),
)

webhooks.get(
  '/',
  key(ADMIN),
  documented({
    summary: 'List webhooks',
    description: 'Newest first, without their secrets.',
    tag: 'Webhooks',
    responses: { 200: { description: 'The workspace’s webhooks.', schema: 'webhookList' } },
  }),
  async (c) => c.json({ webhooks: await listWebhooks(c.var.svc, c.var.actor) }),
)

webhooks.delete(
  '/:webhook_id',
  key(ADMIN),
  params(webhookInPath),
  documented({
    summary: 'Delete a webhook',
    description: 'Nothing more is sent to it, retries included; its deliveries’ log goes with it.',
    tag: 'Webhooks',
    responses: { 200: { description: 'Deleted.', schema: 'success' } },
    errors: ['webhook_not_found'],
  }),
  async (c) => {
    await deleteWebhook(c.var.svc, c.var.actor, c.req.valid('param').webhook_id)
    return c.json({ success: true })
  },
)

webhooks.get(
  '/:webhook_id/deliveries',
  key(ADMIN),
  params(webhookInPath),
  documented({
    summary: 'A webhook’s deliveries',
    description:
      'Its last 100 events, newest first: attempts so far, the last answer, and when the next ' +
      'attempt is due, or when it was delivered.',
    tag: 'Webhooks',
    responses: { 200: { description: 'The deliveries.', schema: 'deliveryList' } },
    errors: ['webhook_not_found'],
  }),
  async (c) => {
    const webhookId = c.req.valid('param').webhook_id
    return c.json({ deliveries: await listDeliveries(c.var.svc, c.var.actor, webhookId) })
  },
)

webhooks.post(
  '/:webhook_id/test',
  key(ADMIN),
  params(webhookInPath),
  documented({
    summary: 'Send a test event',
    description:
      'A signed `webhook.test` event (`data`: `{webhook_id, actor}`) is sent to the webhook at ' +
      'once, whatever it listens for; its delivery shows in the deliveries’ log.',
    tag: 'Webhooks',
    responses: { 202: { description: 'On its way.', schema: 'webhookTest' } },
    errors: ['webhook_not_found'],
  }),
  async (c) => {
    const webhookId = c.req.valid('param').webhook_id
    return c.json(await sendTestEvent(c.var.svc, c.var.actor, webhookId), 202)
  },
)
