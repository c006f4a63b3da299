import { openCommand } from './open'

export default openCommand('view', "Open a canvas's page in the browser (as svc open)")
