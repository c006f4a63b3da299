import { defineCommand } from 'citty'
import { openInBrowser } from '../browser'
import type { Settings } from '../config'
import { usageError } from '../errors'
import { begin, globalArgs, note, print, printJson, viewUrl } from '../shared'

/** `svc open`, and `svc view` by its older name: the canvas's page, opened in the browser. */
export function openCommand(name: string, description: string) {
  return defineCommand({
    meta: { name, description },
    args: {
      ...globalArgs,
      id: { type: 'positional', required: true, description: 'Canvas id, or its page URL' },
    },
    async run({ args }) {
      const { settings } = begin(name, args)
      const { id, url } = canvasPage(args.id, settings)
      // The link first: a browser that is slow to answer (or never does) still leaves it to click.
      if (!args.json) print(url)
      const notOpened = await openInBrowser(url)
      if (args.json) printJson({ canvas_id: id, view_url: url, opened: !notOpened })
      if (notOpened) note(`not opened: ${notOpened}`)
    },
  })
}

export default openCommand('open', "Open a canvas's page in the browser")

/** A canvas id (its page under the web URL), or a page's URL (`…/c/<id>`, on its own host). */
function canvasPage(given: string, settings: Settings): { id: string; url: string } {
  if (/^[A-Za-z0-9]{1,64}$/.test(given)) return { id: given, url: viewUrl(settings, given) }
  let url: URL | undefined
  try {
    url = new URL(given)
  } catch {
    // Neither: said below.
  }
  const web = url && (url.protocol === 'https:' || url.protocol === 'http:')
  const page = web ? /^(.*?)\/c\/([A-Za-z0-9]{1,64})(?:\/|$)/.exec(url!.pathname) : null
  if (!page) throw usageError(`not a canvas id or page URL (…/c/<id>): ${given}`)
  return { id: page[2], url: `${url!.origin}${page[1]}/c/${page[2]}` }
}
