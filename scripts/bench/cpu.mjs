#!/usr/bin/env node
// The runtime's CPU time per request, for comparing checkouts (say, worktrees of two commits):
// what workerd spent (utime + stime from /proc) while wrk loaded one route, over the requests
// wrk counted. On a shared, noisy machine this moves far less than requests per second.
//   node scripts/bench/cpu.mjs [--trials 3] [--rounds 3] [--seconds 4]
//     [--route presign|presign-new|list|read|health|mcp|bare] <tree> [<tree>...]
// `bare` serves the bare Hono baseline (scripts/bench/baseline-hono.ts, this checkout's) with each
// tree's own Miniflare, configured as the app is (compatibility flags, bindings, Durable Object
// classes as stubs), instead of the app: what the runtime alone costs a request, to tell a route's
// change from the runtime's across toolchains.
// Each trial starts fresh servers for every tree (own D1 and R2 state, seeded by the tree's own
// seed.mjs), warms them up, then loads them in turns, the order flipped every round.
import { execSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { bundleBaseline } from './baseline.mjs'
import * as ownSeed from './seed.mjs'
import { ensureWrk, median, wrk } from './wrk.mjs'

const { values, positionals: trees } = parseArgs({
  allowPositionals: true,
  options: {
    trials: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
    route: { type: 'string', default: 'presign' },
  },
})
const routes = {
  presign: (url, data, seed, dir) => ({
    url: `${url}/v1/upload/presign`,
    lua: seed.presignScript(dir),
  }),
  'presign-new': (url, data, seed, dir) => ({
    url: `${url}/v1/upload/presign`,
    lua: seed.freshPresignScript(dir),
  }),
  list: (url) => ({ url: `${url}/v1/canvases` }),
  health: (url) => ({ url: `${url}/health` }),
  mcp: (url, data, seed, dir) => ({ url: `${url}/mcp`, lua: mcpScript(dir, data.canvasId) }),
  bare: () => undefined, // served apart: the baseline in the app's place
  read: (url, data) => ({ url: `${url}/v1/canvases/${data.canvasId}` }),
}
const route = routes[values.route]
if (!route || trees.length === 0) {
  console.error('usage: see the top of scripts/bench/cpu.mjs')
  process.exit(1)
}
// Every tree's buildWorker runs wrangler with this environment, older ones included.
process.env.WRANGLER_SEND_METRICS = 'false'
const tick = 1e6 / Number(execSync('getconf CLK_TCK')) // µs per clock tick
// /proc/<pid>/stat after the name: [11] and [12] are utime and stime, [1] the parent.
const stat = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
const cpu = (pids) =>
  pids.reduce((sum, pid) => sum + (Number(stat(pid)[11]) + Number(stat(pid)[12])) * tick, 0)
const treeModule = (tree, file) => import(pathToFileURL(join(resolve(tree), 'scripts', file)))
// The workerd processes this script started (Miniflare spawns them as its children).
const workerds = () =>
  readdirSync('/proc').filter((p) => {
    try {
      return (
        readFileSync(`/proc/${p}/comm`, 'utf8') === 'workerd\n' && stat(p)[1] === `${process.pid}`
      )
    } catch {
      return false // not a process, or one that just ended
    }
  })

ensureWrk()
const work = mkdtempSync(join(tmpdir(), 'canvas-cpu-'))
const servers = []
// Ctrl-C skips the finally below: Miniflare's own exit hook stops workerd, this removes the rest.
process.once('SIGINT', () => process.exit(130))
process.once('exit', () => rmSync(work, { recursive: true, force: true }))
try {
  const built = []
  for (const [i, tree] of trees.entries()) {
    // Each tree's own helpers: its build, bindings, migrations and seed data.
    const lib = await treeModule(tree, 'lib/miniflare-service.mjs')
    // Seed helpers a tree lacks come from this checkout.
    const seed = { ...ownSeed, ...(await treeModule(tree, 'bench/seed.mjs')) }
    for (const name of ['buildWorker', 'serve', 'appOptions', 'migrate'])
      if (typeof lib[name] !== 'function')
        throw new Error(`${tree}: miniflare-service.mjs has no ${name}`)
    if (values.route === 'bare') built.push({ lib, seed })
    else built.push({ lib, seed, path: lib.buildWorker(join(work, `worker${i}`)).path })
  }
  const bare = values.route === 'bare' ? await bundleBaseline('baseline-hono.ts') : undefined
  const us = trees.map(() => [])
  const rpsRatio = trees.map(() => [])
  const errors = trees.map(() => ({ status: 0, socket: 0 }))
  for (let trial = 0; trial < Number(values.trials); trial++) {
    const apps = []
    for (const [i, { lib, seed, path }] of built.entries()) {
      const dir = join(work, `trial${trial}-${i}`)
      const before = new Set(workerds())
      const appOptions = lib.appOptions(dir, path ?? join(dir, 'unused.js'))
      const options = bare ? bareLike(appOptions, bare) : appOptions
      const app = await lib.serve(options)
      servers.push(app.mf)
      if (!app.url.startsWith('http://127.0.0.1:'))
        throw new Error(`${trees[i]} listens on ${app.url}`)
      const pids = workerds().filter((p) => !before.has(p))
      if (pids.length === 0) throw new Error('no workerd child process found to measure')
      if (bare) {
        apps.push({ i, pids, target: { url: `${app.url}/` } })
        continue
      }
      await lib.migrate(app.mf)
      const data = await seed.seedApp(app.url)
      const headers = ['-H', `Authorization: Bearer ${data.key}`]
      apps.push({ i, pids, target: { ...route(app.url, data, seed, dir), headers } })
    }
    const load = (app, seconds) => {
      const start = cpu(app.pids)
      const result = wrk(app.target, seconds, 32)
      errors[app.i].status += result.statusErrors
      errors[app.i].socket += result.socketErrors
      return { us: (cpu(app.pids) - start) / result.requests, rps: result.rps }
    }
    for (const app of apps) load(app, 1) // warm-up
    const runs = apps.map(() => [])
    for (let round = 0; round < Number(values.rounds); round++) {
      // Flipped every round (and trial), so neither tree always follows the other.
      const order = (round + trial) % 2 ? [...apps].reverse() : apps
      for (const app of order) runs[app.i].push(load(app, Number(values.seconds)))
    }
    const show = (key) => runs.map((r) => r.map((x) => x[key].toFixed(0)).join('/')).join('  ')
    console.log(`trial ${trial}: µs/request ${show('us')}   req/s ${show('rps')}`)
    runs.forEach((r, i) => {
      us[i].push(...r.map((x) => x.us))
      // Each run over the first tree's run of the same round: neighbours share the machine's mood.
      rpsRatio[i].push(...r.map((x, j) => x.rps / runs[0][j].rps))
    })
    while (servers.length) await servers.pop().dispose()
  }
  console.log(`\n${values.route}: median µs/request, ratio to the first tree, median req/s ratio`)
  trees.forEach((tree, i) => {
    const ratio = median(us[i]) / median(us[0])
    const { status, socket } = errors[i]
    const warn = status + socket ? `  (non-2xx ${status}, socket errors ${socket})` : ''
    console.log(
      `${tree}  ${median(us[i]).toFixed(0)} µs  ×${ratio.toFixed(3)}  req/s ×${median(rpsRatio[i]).toFixed(3)}${warn}`,
    )
  })
} finally {
  for (const mf of servers) await mf.dispose().catch(() => {})
  rmSync(work, { recursive: true, force: true })
}

/**
 * The app's options with the bare baseline as its script: the same date, flags and bindings (each
 * costs a request something in the runtime), its Durable Object classes stubs that are never called.
 */
function bareLike(appOptions, script) {
  const { scriptPath: _path, modulesRoot: _root, modulesRules: _rules, ...options } = appOptions
  const classes = Object.values(options.durableObjects ?? {}).map((d) => d.className ?? d)
  const stubs = classes.map(
    (name) => `export class ${name} { fetch() { return new Response(null) } }`,
  )
  return { ...options, script: [script, ...stubs].join('\n') }
}

/** A wrk script that calls the MCP tool get_canvas on the seeded canvas, under the API key. */
function mcpScript(dir, canvasId) {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'mcp.lua')
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_canvas', arguments: { canvas_id: canvasId } },
  })
  writeFileSync(
    path,
    `wrk.method = "POST"\nwrk.body = '${body}'\n` +
      `wrk.headers["Content-Type"] = "application/json"\n` +
      `wrk.headers["Accept"] = "application/json, text/event-stream"\n`,
  )
  return path
}
