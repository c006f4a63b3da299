import { Hono, type Context } from 'hono'
import { page } from '../../http/actor/steps'
import { MANAGING } from '../needs'
import type { SignedInEnv } from '../../http/context'
import { createWebhook, deleteWebhook, sendTestEvent } from '../../domain/webhooks/webhooks'

import { AppError } from '../../lib/errors'
import { id as idSchema } from '../../schema/requests'
import { createWebhookBody } from '../../schema/workspace-requests'
import { setFlash } from '../flash'
import { sentence } from '../forms'
import { checkedForm } from '../session'

// /settings/webhooks: the Settings page's forms that add and delete webhooks. A form refused is
// the page again, its message beside the form; the page is drawn by the settings app.

type Render = <E extends SignedInEnv>(
  c: Context<E>,
  extra: { webhookError: string },
) => Promise<Response>

export function webhookForms(render: Render) {
  const forms = new Hono<SignedInEnv>()

  forms.post('/', page(MANAGING), checkedForm, async (c) => {
    const form = c.var.form
    const checked = createWebhookBody.safeParse({
      url: (form.get('url') ?? '').trim(),
      events: form.getAll('events'),
    })
    if (!checked.success) return render(c, { webhookError: sentence(checked.error) })
    let created
    try {
      created = await createWebhook(c.var.svc, c.var.actor, checked.data)
    } catch (err) {
      // The URL's rules and the workspace's limit are the domain's: said as the API says them.
      if (!(err instanceof AppError) || err.status >= 500) throw err
      return render(c, { webhookError: asSentence(err.message) })
    }
    // The secret is shown once, on the page the redirect lands on: a reload makes no second one.
    await setFlash(c, {
      tone: 'ok',
      text: 'The webhook was added. Copy its signing secret now: it is not shown again.',
      copy: [{ label: 'Signing secret', value: created.secret }],
      at: 'webhooks',
    })
    return c.redirect('/settings#webhooks')
  })

  forms.post('/:webhookId/delete', page(MANAGING), checkedForm, async (c) => {
    const webhookId = c.req.param('webhookId')
    // Deleting one that is gone already leaves the page as it would be anyway, and says so.
    let text = 'That webhook was deleted already.'
    if (idSchema.safeParse(webhookId).success) {
      try {
        await deleteWebhook(c.var.svc, c.var.actor, webhookId)
        text = 'The webhook was deleted: nothing more is sent to it.'
      } catch (err) {
        if (!(err instanceof AppError)) throw err
      }
    }
    await setFlash(c, { tone: 'ok', text, at: 'webhooks' })
    return c.redirect('/settings#webhooks')
  })

  forms.post('/:webhookId/test', page(MANAGING), checkedForm, async (c) => {
    const webhookId = c.req.param('webhookId')
    let text = 'That webhook was deleted: there is nothing to test.'
    if (idSchema.safeParse(webhookId).success) {
      try {
        const sent = await sendTestEvent(c.var.svc, c.var.actor, webhookId)
        text = `A test event (${sent.event_id}) is on its way: its delivery shows below in a moment.`
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'webhook_not_found') throw err
      }
    }
    await setFlash(c, { tone: 'ok', text, at: 'webhooks' })
    return c.redirect('/settings#webhooks')
  })

  return forms
}

/** "url: must use https" → "The URL must use https."; any other message, capitalized. */
function asSentence(message: string) {
  const said = message.replace(/^url: /, 'the URL ')
  return `${said[0].toUpperCase()}${said.slice(1)}.`
}
