// The comments panel as its parts see each other: its elements, its state, its requests, and
// what each part lets the others do. index.ts puts it together.
import type { Api } from './api'
import type { Anchor, State } from './state'

export type Form = {
  root: HTMLFormElement
  body: HTMLTextAreaElement
  name: HTMLInputElement | null
  point: HTMLButtonElement
  say: (text: string, error?: boolean) => void
  describe: () => void
}

export type Panel = {
  root: HTMLElement
  list: HTMLElement
  empty: HTMLElement
  toggles: NodeListOf<HTMLElement>
  frame: HTMLIFrameElement | null
  /** A member's page (no name asked), or a share link's readers (who give a name). */
  owner: boolean
  /** Whoever may resolve, reopen and delete: a member whose role changes the canvas. */
  moderate: boolean
  /** The version the page shows. */
  shown: number
  state: State
  api: Api
  form: Form
  /** Draws the list and tells the frame what to highlight. */
  render: () => void
  drawList: () => void
  /** Marks a comment as the one looked at, in the list and in the frame. */
  focus: (id: string) => void
  setAnchor: (anchor: Anchor) => void
  setPointMode: (on: boolean) => void
  openPanel: () => void
  /** A failure, said under the form. */
  failed: (err: unknown) => void
  /** A visitor's name, from the form (asked once); '' on the owner's page; null when missing. */
  visitorName: () => string | null
}
