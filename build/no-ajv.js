// Stands in for ajv and ajv-formats in the Worker bundle (wrangler.toml [alias]). The MCP SDK's
// server imports ajv at the top to validate what clients answer to elicitation requests; Canvas
// never sends one and gives the server a validator of its own, so ajv would be 41 KiB gzipped of
// code that never runs. If it ever did, this says why it is missing.
export default class Ajv {
  constructor() {
    throw new Error('ajv is not bundled in the Worker: pass jsonSchemaValidator to the MCP server')
  }
}
