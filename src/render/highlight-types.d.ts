// highlight.js ships types that pull in the DOM library, which clashes with the Workers types;
// tsconfig's `paths` points its modules here instead. Only what src/render/code.ts uses.
declare const module: {
  registerLanguage(name: string, language: unknown): void
  getLanguage(name: string): unknown
  highlight(
    code: string,
    options: { language: string; ignoreIllegals?: boolean },
  ): { value: string }
}
export default module
