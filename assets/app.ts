// The app's one script, served from the app's origin (the CSP allows no other). Every page works
// without it; it adds copy buttons, a version picker that needs no extra click, uploads that go
// straight to storage with a progress bar (the page's plain form post is the fallback), and
// viewers that follow their canvas's new versions.
import { autoSubmit } from './auto-submit'
import { copyButtons } from './copy'
import { followLive } from './live'
import { uploads } from './upload'

copyButtons()
autoSubmit()
uploads()
followLive()
