// The Content-Type a download is served with comes from this allowlist keyed by extension, never
// from what the uploader claimed (docs/api.md).

const TEXT = 'text/plain; charset=utf-8'

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  txt: TEXT,
  log: TEXT,
  mmd: TEXT,
  mermaid: TEXT,
  ipynb: 'application/x-ipynb+json',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  json: 'application/json',
  xml: 'application/xml',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  ico: 'image/x-icon',
  wasm: 'application/wasm',
  map: 'application/json',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
}

// Source files are served as plain text: a browser must never treat a .php or .sh as something
// to execute or to sniff.
const SOURCE = 'ts tsx jsx py rb go rs java kt c h cpp cs php sh sql yaml yml toml'.split(' ')

export function contentTypeFor(ext: string): string {
  return TYPES[ext] ?? (SOURCE.includes(ext) ? TEXT : 'application/octet-stream')
}

/**
 * `attachment; filename="<title>.<ext>"` with anything that could break out of the header or the
 * target folder replaced, plus an RFC 5987 `filename*` carrying the exact UTF-8 name.
 */
/** Half of a UTF-16 pair, with no other half beside it. */
export const LONE_SURROGATE =
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

export function contentDisposition(kind: 'attachment' | 'inline', title: string, ext: string) {
  const name = fileName(title, ext)
  const ascii = name
    .replace(/[\u0000-\u001f\u007f"\\/:*?<>|%]/g, '_')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/^[.\s]+/, '_')
  // encodeURIComponent throws on a lone surrogate: such a half character becomes U+FFFD first.
  const whole = name.replace(LONE_SURROGATE, '\ufffd')
  const utf8 = encodeURIComponent(whole.replace(/[\u0000-\u001f\u007f/\\]/g, '_')).replace(
    /['()*]/g,
    (ch) => '%' + ch.charCodeAt(0).toString(16).toUpperCase(),
  )
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${utf8}`
}

/** `<title>.<ext>`, except that a title already ending in `.<ext>` ("report.html") is kept. */
export function fileName(title: string, ext: string): string {
  // A file of a site without an extension (`LICENSE`) keeps its name as it is.
  if (ext === '') return title
  return title.toLowerCase().endsWith(`.${ext}`) ? title : `${title}.${ext}`
}

/** The file name's extension, lowercased; without one, `txt` for UTF-8 text, else `bin`. */
export function extFromName(name: string, head: ArrayBuffer): string {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(name)
  if (match) return match[1].toLowerCase()
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(head, { stream: true })
    return new Uint8Array(head).includes(0) ? 'bin' : 'txt'
  } catch {
    return 'bin'
  }
}
