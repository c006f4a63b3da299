export declare const BUNDLE_BUDGET_KIB: number
export declare function bundleSize(): { minified: number; gzipped: number }
