// The documentation's pages in the order a newcomer reads them, as the deployment lists them
// beside each page (and beside the API reference). test/node/docs.test.ts holds it equal to the
// pages there are.

export const DOC_INDEX = [
  { page: 'readme', title: 'Canvas (the README)' },
  { page: 'development', title: 'Running locally' },
  { page: 'web', title: 'The web app' },
  { page: 'cli', title: 'The svc CLI' },
  { page: 'api', title: 'The API' },
  { page: 'agents', title: 'Agents and chat apps' },
  { page: 'connector-directories', title: 'Connector directories' },
  { page: 'sites', title: 'Sites' },
  { page: 'comments-and-webhooks', title: 'Comments and webhooks' },
  { page: 'reviews', title: 'Reviews' },
  { page: 'readership', title: 'Readership' },
  { page: 'teams', title: 'Teams' },
  { page: 'configuration', title: 'Configuration' },
  { page: 'deploy', title: 'Deploying' },
  { page: 'operations', title: 'Operating a deployment' },
  { page: 'architecture', title: 'Architecture' },
  { page: 'testing', title: 'Testing' },
  { page: 'scaling', title: 'Scaling' },
  { page: 'security', title: 'Security' },
  { page: 'benchmarks', title: 'Benchmarks' },
  { page: 'benchmarks-history', title: 'Benchmarks: the journal' },
] as const
