import { EVENT_TYPES } from '../../lib/events'
import type { Delivery, Webhook } from '../../schema/responses'
import type { Flash } from '../flash'
import { Csrf } from '../pages/layout'
import { ListTable } from '../pages/list-table'
import { FormError, Notice } from '../pages/notice'
import { Ago } from '../pages/when'

export type WebhookView = Webhook & { deliveries: Delivery[] }

const when = (iso: string) => iso.slice(0, 16).replace('T', ' ')

/** Where a delivery stands, in words: delivered, its next attempt due, or given up. */
function deliveryState(d: Delivery) {
  if (d.delivered_at) return `delivered ${when(d.delivered_at)}`
  if (d.next_attempt_at) return `next attempt ${when(d.next_attempt_at)}`
  return 'given up'
}

function lastAnswer(d: Delivery) {
  if (d.last_status !== null) return `HTTP ${d.last_status}`
  return d.last_error ?? '—'
}

/** The Settings page's webhooks: each with its last deliveries, a form to add one, and deletes. */
export function WebhooksSection(props: {
  csrf: string
  webhooks: WebhookView[]
  flash?: Flash
  error?: string
}) {
  const { csrf } = props
  return (
    <section id="webhooks" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p class="muted">
        Each event of the workspace you choose is sent to the URL as a signed POST (see the{' '}
        <a href="/docs">API documentation</a>), and retried for a day until it is received.
      </p>
      <Notice flash={props.flash} />
      {props.error && <FormError>{props.error}</FormError>}
      <form class="panel" method="post" action="/settings/webhooks">
        <Csrf token={csrf} />
        <label for="webhook-url">URL</label>
        <input
          id="webhook-url"
          name="url"
          type="url"
          required
          maxlength={2048}
          placeholder="https://hooks.example.com/canvas"
        />
        <fieldset class="choices">
          <legend>Events</legend>
          {EVENT_TYPES.map((type, i) => (
            <label>
              <input type="checkbox" name="events" value={type} checked={i === 0} /> {type}
            </label>
          ))}
        </fieldset>
        <button class="primary" type="submit">
          Add webhook
        </button>
      </form>
      {props.webhooks.length === 0 ? (
        <p class="muted">No webhooks yet.</p>
      ) : (
        props.webhooks.map((w) => (
          <div class="panel" id={`webhook-${w.webhook_id}`}>
            <div class="row">
              <div class="grow">
                <code>{w.url}</code>
                <p class="hint">
                  {w.events.join(', ')} · added <Ago at={w.created_at} />
                </p>
              </div>
              <form method="post" action={`/settings/webhooks/${w.webhook_id}/test`}>
                <Csrf token={csrf} />
                <button class="small" type="submit">
                  Send a test event
                </button>
              </form>
              <details class="dialog">
                <summary class="btn small danger">Delete…</summary>
                <form
                  class="row"
                  method="post"
                  action={`/settings/webhooks/${w.webhook_id}/delete`}
                >
                  <Csrf token={csrf} />
                  <span class="hint">Nothing more is sent to it, retries included.</span>
                  <button class="small danger solid" type="submit">
                    Delete this webhook
                  </button>
                </form>
              </details>
            </div>
            {w.deliveries.length === 0 ? (
              <p class="hint">Nothing sent yet.</p>
            ) : (
              <ListTable columns={['Event', 'Type', 'Attempts', 'Last answer', 'State']}>
                {w.deliveries.map((d) => (
                  <tr>
                    <td class="primary-cell">
                      <code>{d.event_id}</code>
                    </td>
                    <td data-label="Type">{d.type}</td>
                    <td data-label="Attempts">{d.attempts}</td>
                    <td data-label="Last answer">{lastAnswer(d)}</td>
                    <td data-label="State" class="nowrap">
                      {deliveryState(d)}
                    </td>
                  </tr>
                ))}
              </ListTable>
            )}
          </div>
        ))
      )}
    </section>
  )
}
