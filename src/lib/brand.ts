// Where the service's mark is served (web/favicon.ts), for the pages and for the MCP server's
// icons alike.
export const FAVICON_PATH = '/favicon.svg'
