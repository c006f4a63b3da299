import { statusCommand } from '../status'

export default statusCommand(
  'whoami',
  'Show the user and workspace of the key in use, and the settings (as svc status)',
)
