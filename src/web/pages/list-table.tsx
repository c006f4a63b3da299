import type { Child } from 'hono/jsx'

/**
 * A list of items, one row each (a card each on a phone: styles.ts), its columns named; with
 * `actions`, a last column for each row's buttons.
 */
export function ListTable(props: {
  columns: string[]
  actions?: boolean
  class?: string
  children: Child
}) {
  return (
    <table class={props.class ? `list ${props.class}` : 'list'}>
      <thead>
        <tr>
          {props.columns.map((name) => (
            <th>{name}</th>
          ))}
          {props.actions && (
            <th>
              <span class="muted">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  )
}
