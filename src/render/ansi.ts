import { AnsiUp } from 'ansi_up'

// Terminal output as HTML: the colours and weights of ANSI escape sequences (a Python traceback's,
// a test runner's) become classes the frame's stylesheet colours for its light and dark themes;
// every other escape sequence is dropped and the text is escaped.

export function ansiHtml(text: string): string {
  // One converter a text: it keeps the open colours from one call to the next.
  const converter = new AnsiUp()
  converter.use_classes = true
  return converter.ansi_to_html(text)
}
