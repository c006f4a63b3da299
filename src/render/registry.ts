// The renderer registry (docs/web.md): which renderer a canvas gets by default, by
// extension.

export type Renderer = {
  renderer_id: string
  name: string
  exts: string[]
  scripts: boolean
}

export const RENDERERS: Renderer[] = [
  { renderer_id: 'html', name: 'HTML page', exts: ['html', 'htm'], scripts: true },
  { renderer_id: 'markdown', name: 'Markdown', exts: ['md', 'markdown'], scripts: false },
  {
    renderer_id: 'code',
    name: 'Source code',
    exts: 'js mjs ts tsx jsx py rb go rs java kt c h cpp cs php sh sql css yaml yml toml xml'.split(
      ' ',
    ),
    scripts: false,
  },
  { renderer_id: 'json', name: 'JSON', exts: ['json'], scripts: false },
  { renderer_id: 'mermaid', name: 'Mermaid diagram', exts: ['mmd', 'mermaid'], scripts: false },
  { renderer_id: 'notebook', name: 'Jupyter notebook', exts: ['ipynb'], scripts: false },
  // Claims no extension: a JSON file is a chart when its $schema says so (chartOrJson).
  { renderer_id: 'vega', name: 'Vega or Vega-Lite chart', exts: [], scripts: false },
  { renderer_id: 'csv', name: 'Table', exts: ['csv', 'tsv'], scripts: false },
  {
    renderer_id: 'image',
    name: 'Image',
    exts: ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg'],
    scripts: false,
  },
  { renderer_id: 'pdf', name: 'PDF document', exts: ['pdf'], scripts: false },
  {
    renderer_id: 'media',
    name: 'Audio or video',
    exts: ['mp4', 'webm', 'mp3', 'wav', 'ogg'],
    scripts: false,
  },
  { renderer_id: 'text', name: 'Plain text', exts: ['txt', 'log'], scripts: false },
  { renderer_id: 'download', name: 'Download', exts: [], scripts: false },
]

/**
 * Renderers whose frames may run the deployment's own drawing scripts (assets/draw/), never the
 * content's: the page's sandbox allows scripts for them, the frame's policy names each script.
 */
export const DRAWING_RENDERERS = new Set(['markdown', 'mermaid', 'notebook', 'vega'])

// A Vega or Vega-Lite specification names its schema, as the libraries' own examples do.
const VEGA_SCHEMA = /"\$schema"\s*:\s*"https?:\/\/vega\.github\.io\/schema\/vega(?:-lite)?\//

/** The renderer of a `json` file by what it holds: a chart when its `$schema` names Vega's. */
export function chartOrJson(text: string): 'vega' | 'json' {
  return VEGA_SCHEMA.test(text) ? 'vega' : 'json'
}

const byId = new Map(RENDERERS.map((r) => [r.renderer_id, r]))
const byExt = new Map(RENDERERS.flatMap((r) => r.exts.map((ext) => [ext, r] as const)))

export function findRenderer(rendererId: string): Renderer | undefined {
  return byId.get(rendererId)
}

/**
 * The default renderer for an extension. Files with an unknown extension are shown as text when
 * their type says so, else offered as a download.
 */
export function defaultRenderer(ext: string, mime?: string): Renderer {
  const known = byExt.get(ext)
  if (known) return known
  return byId.get(mime?.startsWith('text/') ? 'text' : 'download')!
}
