import { Csrf } from './layout'

export function Action(props: {
  csrf: string
  action: string
  label: string
  fields?: Record<string, string>
}) {
  return (
    <form class="inline" method="post" action={props.action}>
      <Csrf token={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit">{props.label}</button>
    </form>
  )
}
