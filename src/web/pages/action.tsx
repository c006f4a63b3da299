import { Csrf } from './layout'

export function Action(props: {
  csrf: string
  action: string
  label: string
  fields?: Record<string, string>
  /** Where the post's redirect lands: the dashboard, or (by default) the canvas's page. */
  back?: 'dashboard'
}) {
  return (
    <form class="inline" method="post" action={props.action}>
      <Csrf token={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {props.back && <input type="hidden" name="back" value={props.back} />}
      <button type="submit">{props.label}</button>
    </form>
  )
}
