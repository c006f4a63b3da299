// The CLI as the npm package a deployment serves at /cli/svc.tgz (docs/cli.md#install-and-first-steps): the
// bundle of cli/build.mjs with a package.json, packed by `npm pack` and kept unzipped among the
// static assets. The bundle holds ENDPOINT_MARKER as its default address; the Worker writes its own
// address over it, byte for byte (src/web/cli-package.ts), and gzips the result.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'

/** As long as the longest address a deployment may write over it; the rest stays spaces. */
export const ENDPOINT_MARKER = 'canvas:served-endpoint'.padEnd(512, ' ')

/** The name of the packed CLI among the assets: new bytes, new name. */
export function cliTarName(bundle, version) {
  const hash = createHash('sha256').update(version).update(bundle).digest('hex').slice(0, 16)
  return `svc.${hash}.tar`
}

/** The package of `bundle` (the CLI's single file) as a tar, as npm packs it. */
export function packCli(bundle, version) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-package-'))
  try {
    const manifest = {
      name: 'canvas-svc',
      version,
      description: 'svc: publish files to Canvas as live, versioned, shareable pages',
      type: 'module',
      bin: { svc: 'svc.mjs' },
      files: ['svc.mjs', 'README.md'],
      engines: { node: '>=20' },
      license: 'MIT',
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')
    writeFileSync(join(dir, 'svc.mjs'), bundle, { mode: 0o755 })
    writeFileSync(
      join(dir, 'README.md'),
      '# svc\n\nThe command line of the Canvas deployment this package came from: `svc login`, ' +
        'then `svc push <file>`. `svc --help` lists every command.\n',
    )
    // npm's own packer: the layout (`package/…`) and modes npm expects when it installs.
    execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
    })
    const packed = readdirSync(dir).find((name) => name.endsWith('.tgz'))
    if (!packed) throw new Error('npm pack wrote no tarball')
    const tar = gunzipSync(readFileSync(join(dir, packed)))
    if (tar.indexOf(ENDPOINT_MARKER) < 0)
      throw new Error('the packed CLI lacks its endpoint marker')
    return tar
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
