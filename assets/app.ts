// The app's one script, served from the app's origin (the CSP allows no other). Every page works
// without it; it adds copy buttons, a version picker that needs no extra click, menus that close
// and stay in the window, uploads of files and folders that go straight to storage with a
// progress bar (the page's plain form post is the fallback), messages brought into view, and
// viewers that follow their canvas's new versions and comments.
import { autoSubmit } from './auto-submit'
import { commentPanels } from './comments/index'
import { copyButtons } from './copy'
import { followLive } from './live'
import { menus } from './menus'
import { dialogs, notices } from './notices'
import { uploads } from './upload/index'

copyButtons()
autoSubmit()
menus()
dialogs()
uploads()
commentPanels()
followLive()
notices()
