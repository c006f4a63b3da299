import { describe, expect, it } from 'vitest'
import { call } from './support/api'

// GET /cli/svc.tgz (docs/cli.md#install-and-first-steps): the CLI as an npm package whose default endpoint is
// the deployment it came from. Installed and used for real in test/node/cli-install.test.ts.

async function filesOf(res: Response): Promise<Map<string, string>> {
  const tar = new Uint8Array(
    await new Response(res.body!.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer(),
  )
  const files = new Map<string, string>()
  const text = new TextDecoder()
  // A ustar archive: a 512-byte header (name, size in octal at 124) before each file's blocks.
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0;) {
    const name = text.decode(tar.subarray(at, at + 100)).replace(/\0.*$/s, '')
    const size = parseInt(text.decode(tar.subarray(at + 124, at + 136)).replace(/\0.*$/s, ''), 8)
    files.set(name, text.decode(tar.subarray(at + 512, at + 512 + size)))
    at += 512 + Math.ceil(size / 512) * 512
  }
  return files
}

describe('the CLI package', () => {
  it('is an npm package of svc, named for the machine it is served on from that machine', async () => {
    const res = await call('http://127.0.0.1:8787/cli/svc.tgz', { ip: '127.0.0.1' })
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('application/gzip')
    expect(res.headers.get('Content-Disposition')).toContain('svc.tgz')
    // Named from the request's own address: for that host only.
    expect(res.headers.get('Cache-Control')).toBe('private, max-age=300')
    expect(res.headers.get('Vary')).toBe('Host')
    const files = await filesOf(res)
    const manifest = JSON.parse(files.get('package/package.json')!)
    expect(manifest.bin).toEqual({ svc: 'svc.mjs' })
    const cli = files.get('package/svc.mjs')!
    expect(cli.startsWith('#!/usr/bin/env node')).toBe(true)
    expect(cli).toMatch(/"http:\/\/127\.0\.0\.1:8787 {400,}"/)
    expect(cli).not.toContain('canvas:served-endpoint')
  })

  it('names no address a Host header chose: without APP_URL, only the machine itself', async () => {
    for (const [url, ip] of [
      ['http://evil.example/cli/svc.tgz', '203.0.113.9'],
      ['http://canvas.test/cli/svc.tgz', '127.0.0.1'],
      // A loopback name from elsewhere is a Host header too.
      ['http://127.0.0.1:8787/cli/svc.tgz', '203.0.113.9'],
      ['http://localhost:8787/cli/svc.tgz', '2001:db8::1'],
    ]) {
      const res = await call(url, { ip })
      expect(res.status, url).toBe(200)
      const cli = (await filesOf(res)).get('package/svc.mjs')!
      // The marker's place holds no address (an assertion on the whole bundle would print it).
      expect(/"canvas:no-endpoint {400,}"/.test(cli), url).toBe(true)
    }
  })

  it('names the configured address, whatever the Host', async () => {
    const res = await call('/cli/svc.tgz', {
      env: { APP_URL: 'https://canvas.example.com' },
      headers: { Host: 'evil.example' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=300')
    const cli = (await filesOf(res)).get('package/svc.mjs')!
    expect(cli).toMatch(/"https:\/\/canvas\.example\.com {400,}"/)
    expect(cli).not.toContain('evil.example')
  })
})
