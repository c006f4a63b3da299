import { viewerOf } from '../session'
import { open } from '../../http/actor/steps'
import { Hono } from 'hono'
import type { AppEnv } from '../../http/context'
import type { OpenApiDocument } from '../../http/openapi'
import { documented } from '../../http/route-docs'
import { AppError } from '../../lib/errors'
import { DOC_INDEX } from './contents'
import { docSource, renderDoc } from './pages'
import { ApiDocs } from './api-docs-page'
import { DocPage } from './doc-page'

// The API reference for people, rendered here from the same description as /openapi.json (no
// script or style from another host), and the repository's documentation beside it.
export function docs(describe: () => Promise<OpenApiDocument>) {
  const page = new Hono<AppEnv>()
  page.get(
    '/',
    open,
    documented({
      summary: 'This API reference, for people',
      tag: 'Agents',
      responses: { 200: { description: 'The page.', contentType: 'text/html' } },
    }),
    async (c) => c.html(<ApiDocs doc={await describe()} user={viewerOf(c.var.session)} />),
  )
  // The repository's documentation, as this deployment's release has it.
  page.get('/:page', open, async (c) => {
    const name = c.req.param('page')
    const source = await docSource(c.env.ASSETS, new URL(c.req.url).origin, name)
    if (source === null) throw new AppError('not_found', 'no such page of the documentation')
    const title = DOC_INDEX.find((d) => d.page === name)?.title ?? /^# (.+)$/m.exec(source)?.[1]
    const html = await renderDoc(name, source)
    return c.html(
      <DocPage page={name} title={title ?? name} html={html} user={viewerOf(c.var.session)} />,
    )
  })
  return page
}
