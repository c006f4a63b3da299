import { ago, calendar, relative } from '../../lib/time'

/** A past moment, as long ago as it was, its date on hover and for machines. */
export function Ago({ at }: { at: string }) {
  return (
    <time datetime={at} title={calendar(at)}>
      {ago(at)}
    </time>
  )
}

/** A moment to come, as far off as it is ("in 7 days"), its date on hover and for machines. */
export function Until({ at }: { at: string }) {
  return (
    <time datetime={at} title={calendar(at)}>
      {relative(at)}
    </time>
  )
}
