import { ago, calendar } from '../../lib/time'

/** A past moment, as long ago as it was, its date on hover and for machines. */
export function Ago({ at }: { at: string }) {
  return (
    <time datetime={at} title={calendar(at)}>
      {ago(at)}
    </time>
  )
}
