// What the CLI package a deployment serves (GET /cli/svc.tgz) says in place of its endpoint when
// the deployment cannot tell its own address safely: no APP_URL, and a request not from the
// machine it runs on. The CLI then asks for one rather than trust a Host header.
export const NO_SERVED_ENDPOINT = 'canvas:no-endpoint'
