export declare const BUNDLE_BUDGET_KIB: number
export declare const BUNDLE_TARGET_KIB: number
export declare function bundleSize(): {
  minified: number
  gzipped: number
  /** The modules the Worker's start evaluates (paths as esbuild names them). */
  atStart: string[]
}
