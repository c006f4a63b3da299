// The URLs of the app's script and stylesheet, named by a hash of their bytes. The module itself
// (asset-urls.js, not committed) is written with the files by scripts/build-assets.mjs, which
// runs before every build of the Worker; this declaration lets the code be checked without it.
export declare const APP_JS: string
export declare const APP_CSS: string
/** The comments bridge that content frames carry inline, and its CSP hash ('sha256-…'). */
export declare const BRIDGE_JS: string
export declare const BRIDGE_HASH: string
/** The CLI's npm package, unzipped, with its endpoint marker; null where the CLI was not built. */
export declare const CLI_TAR: string | null
/** The drawing libraries of content frames (scripts/draw-assets.mjs), by what each draws. */
export declare const DRAW: {
  mermaid: string
  math: string
  mathCss: string
  vega: string
}
