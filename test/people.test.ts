import { describe, expect, it } from 'vitest'
import { forPeople } from '../src/web/people'

// The API's messages as the web app says them to a person: a sentence, the field as the page
// names it, sizes as people read them.

describe('forPeople', () => {
  it('says a field and a size as a person reads them', () => {
    expect(forPeople('size: at most 5368709120 bytes')).toBe('The file must be at most 5.0 GB.')
    expect(forPeople('size: 6000000000000 bytes is over the limit of 5368709120 bytes')).toBe(
      'The file is over the limit of 5.0 GB.',
    )
    expect(forPeople('items.2.path: must not start with /')).toBe(
      'The path of file 3 must not start with /.',
    )
  })

  it('starts a sentence with a capital and ends it with a stop, once', () => {
    expect(forPeople('canvas not found')).toBe('Canvas not found.')
    expect(forPeople('Too many requests.')).toBe('Too many requests.')
    // A field it does not know keeps its rule, without a programmer's name for it.
    expect(forPeople('zzz_field: must be short')).toBe('Must be short.')
  })
})
