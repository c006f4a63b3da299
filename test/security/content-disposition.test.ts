import { contentDisposition } from '../../src/lib/content-types'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { call, follow, json, newAccount, newCanvas } from '../support/api'
import { runs } from '../support/runs'

// Titles are the user's to choose (whole characters, no control characters) and become download
// file names. Whatever they hold, the Content-Disposition header stays one well-formed value whose
// names cannot break out of the header, the quoted string, or the folder they are saved in.

const EDGES = ['"', '\\', '/', '..', ';', '%', "'", '\u202e', '\ud800', '\udfff', '𝕏', ' ', '*']
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const title = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom(...EDGES)), {
    minLength: 1,
    maxLength: 12,
  })
  .map((parts) => parts.join('').slice(0, 200))
  .filter((t) => t.length > 0 && !/[\u0000-\u001f\u007f]/.test(t))

it('download names stay inside their header and their folder, whatever the title', async () => {
  const account = await newAccount()
  const canvas = await newCanvas(account.key, 'named by the title')
  const id = canvas.canvas_id
  await fc.assert(
    fc.asyncProperty(title, fc.boolean(), async (t, attachment) => {
      const patch = await call(`/v1/canvases/${id}`, {
        method: 'PATCH',
        key: account.key,
        json: { title: t },
      })
      if (LONE_SURROGATE.test(t)) {
        // Half a character is refused (it could not be stored as itself); nothing changes.
        expect(patch.status, JSON.stringify(t)).toBe(400)
        return
      }
      expect(patch.status, JSON.stringify(t)).toBe(200)
      const stored = (await json(patch)).title as string
      const res = await call(`/v1/canvases/${id}/content${attachment ? '?dl=1' : ''}`, {
        key: account.key,
      })
      expect(res.status, JSON.stringify(t)).toBe(302)
      const content = await follow(res)
      expect(content.status).toBe(200)
      const header = content.headers.get('Content-Disposition')!
      const match =
        /^(attachment|inline); filename="([\x20-\x7e]*)"; filename\*=UTF-8''([\x21-\x7e]*)$/.exec(
          header,
        )
      expect(match, header).not.toBeNull()
      const [, kind, ascii, encoded] = match!
      expect(kind).toBe(attachment ? 'attachment' : 'inline')
      expect(ascii).not.toMatch(/["\\/]/)
      expect(ascii).not.toMatch(/^[.\s]/)
      const exact = decodeURIComponent(encoded)
      expect(exact).not.toMatch(/[\u0000-\u001f\u007f/\\]/)
      // The exact name is the stored title (with its extension), but for the folder separators.
      expect(exact.startsWith(stored.replace(/[/\\]/g, '_')), `${exact} vs ${stored}`).toBe(true)
      expect(await content.text()).toBe('named by the title')
    }),
    { numRuns: runs(150) },
  )
})

it('a title with half a surrogate pair still gives a header (D1 would store U+FFFD anyway)', () => {
  expect(contentDisposition('attachment', 'a\ud800b/\udfff', 'txt')).toBe(
    `attachment; filename="a_b__.txt"; filename*=UTF-8''a%EF%BF%BDb_%EF%BF%BD.txt`,
  )
})
