import { MIN_PASSWORD_LENGTH } from '../../schema/account-requests'
import type { Flash } from '../flash'
import { Csrf } from '../pages/layout'
import { flashAt, FormError, Notice } from '../pages/notice'

/**
 * Settings' password form: the current password and a new one; for an account made by single
 * sign-on, a first password. Not shown where passwords open nothing (PASSWORD_LOGIN=off).
 */
export function PasswordSection(props: {
  csrf: string
  hasPassword: boolean
  flash?: Flash
  error?: string
}) {
  return (
    <>
      <h2 id="password">Your password</h2>
      <p class="muted">
        {props.hasPassword
          ? 'Changing it signs out your other sessions.'
          : 'You sign in by single sign-on. A password lets you sign in without it too.'}
      </p>
      <Notice flash={flashAt(props.flash, 'password')} />
      {props.error && <FormError>{props.error}</FormError>}
      <form class="panel row" method="post" action="/settings/password">
        <Csrf token={props.csrf} />
        {props.hasPassword ? (
          <div>
            <label for="current-password">Current password</label>
            <input
              id="current-password"
              name="current"
              type="password"
              required
              autocomplete="current-password"
            />
          </div>
        ) : (
          <input type="hidden" name="current" value="" />
        )}
        <div>
          <label for="new-password">New password</label>
          <input
            id="new-password"
            name="password"
            type="password"
            required
            minlength={MIN_PASSWORD_LENGTH}
            autocomplete="new-password"
          />
        </div>
        <button class="primary" type="submit">
          {props.hasPassword ? 'Change password' : 'Set password'}
        </button>
      </form>
    </>
  )
}
