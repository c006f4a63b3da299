// A heading's anchor in a Markdown page, the way GitHub makes it: the docs served by the
// deployment and the test of the docs' links agree on it.

/** GitHub's anchor of a heading: lower case, punctuation gone, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-')
}
