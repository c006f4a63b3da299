import { createServer, type Server } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { putFile } from '../../cli/transfer'
import { freePort } from './support/dev-server'

// The CLI's PUT against a bare HTTP server, for what no real storage service would let happen.

let server: Server
let url: string
const received: number[] = []
const work = mkdtempSync(join(tmpdir(), 'canvas-transfer-'))

beforeAll(async () => {
  const port = await freePort()
  server = createServer((req, res) => {
    let bytes = 0
    req.on('data', (chunk: Buffer) => (bytes += chunk.length))
    req.on('end', () => {
      received.push(bytes)
      // ?status=N answers N, as storage refusing the PUT would.
      res.statusCode = Number(new URL(req.url!, 'http://x').searchParams.get('status') ?? 200)
      res.end()
    })
    req.on('error', () => received.push(bytes))
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${port}/upload`
})

afterAll(() => {
  server.close()
  rmSync(work, { recursive: true, force: true })
})

it('fails at once, naming the cause, when the file shrank after it was hashed', async () => {
  const path = join(work, 'shrunk.bin')
  writeFileSync(path, Buffer.alloc(100_000, 1))
  // Hashed and announced at 300,000 bytes; only 100,000 are left to send. (Before, the server
  // waited for the rest until the 300 s idle timeout.)
  await expect(putFile(url, path, 300_000, 'application/octet-stream')).rejects.toThrow(
    'upload failed: the file changed while it was uploading; push it again',
  )
})

it('sends exactly the bytes announced', async () => {
  const path = join(work, 'whole.bin')
  writeFileSync(path, Buffer.alloc(1_000_000, 2))
  await putFile(url, path, 1_000_000, 'application/octet-stream')
  expect(received.at(-1)).toBe(1_000_000)
})

it('takes 412 as the bytes being there already, and fails on any other refusal', async () => {
  const path = join(work, 'there.bin')
  writeFileSync(path, Buffer.alloc(1000, 3))
  // A presigned PUT never overwrites: 412 means storage holds these bytes (the key names their
  // sha256), so the upload goes on to finalize, which checks them.
  await putFile(`${url}?status=412`, path, 1000, 'application/octet-stream')
  await expect(
    putFile(`${url}?status=403`, path, 1000, 'application/octet-stream'),
  ).rejects.toThrow()
})
