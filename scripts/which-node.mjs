#!/usr/bin/env node
// The one line an install says of Node: npm runs the project's scripts on the Node of the dev
// dependency `node` (first on their PATH), whatever Node the shell has; npm's own engines
// warnings about it are hidden (.npmrc), so this says it instead, once.
const major = Number(process.versions.node.split('.')[0])
console.log(
  major >= 22
    ? `✔ node: the scripts run on Node ${process.version} (node_modules/.bin/node), whatever node your shell has`
    : `✘ node: the scripts would run on Node ${process.version}; wrangler needs 22 or newer: run npm install without --ignore-scripts`,
)
