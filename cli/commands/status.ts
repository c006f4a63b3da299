import { statusCommand } from '../status'

export default statusCommand(
  'status',
  'Show the endpoint, web URL and key in use, where each comes from, and whether the key works',
)
