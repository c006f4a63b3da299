// Checks a zip as it streams past, holding one entry's header at a time: every entry the archive
// should hold, in path order, each stored (not compressed) with the bytes uploaded (CRC-32 of its
// data against the file's own), then a central directory that agrees with what went by. Written
// apart from fflate, which made the archive, so that the two do not share a misreading of the
// format. Only the layout fflate's streaming `Zip` writes is accepted: a data descriptor after
// each entry's data, no 64-bit extension.
import { crc32 } from 'node:zlib'

const LOCAL = 0x04034b50
const DESCRIPTOR = 0x08074b50
const CENTRAL = 0x02014b50
const END = 0x06054b50

/**
 * Reads `chunks` (an async iterable of byte arrays) as a zip of `expected`, a list of
 * `{ path, size, crc }`; throws at the first disagreement, else returns the entries' count.
 */
export async function checkZip(chunks, expected) {
  const files = [...expected].sort((a, b) => (a.path < b.path ? -1 : 1))
  const input = new Bytes(chunks)
  const offsets = []
  for (const file of files) {
    offsets.push(input.position)
    const head = await input.take(30)
    expect(head.readUInt32LE(0) === LOCAL, `no local header for ${file.path}`)
    expect((head.readUInt16LE(6) & 8) === 8, `${file.path}: no data descriptor flag`)
    expect(head.readUInt16LE(8) === 0, `${file.path}: compressed`)
    const name = (await input.take(head.readUInt16LE(26))).toString('utf8')
    expect(name === file.path, `entry ${offsets.length}: '${name}', expected '${file.path}'`)
    await input.take(head.readUInt16LE(28))
    let crc = 0
    await input.pass(file.size, (data) => (crc = crc32(data, crc)))
    expect(crc === file.crc, `${file.path}: CRC-32 of its data differs from the uploaded file's`)
    const descriptor = await input.take(16)
    expect(descriptor.readUInt32LE(0) === DESCRIPTOR, `${file.path}: no data descriptor`)
    expect(descriptor.readUInt32LE(4) === crc, `${file.path}: descriptor CRC-32`)
    expect(descriptor.readUInt32LE(8) === file.size, `${file.path}: descriptor size`)
    expect(descriptor.readUInt32LE(12) === file.size, `${file.path}: descriptor size`)
  }
  const directoryAt = input.position
  for (const [i, file] of files.entries()) {
    const head = await input.take(46)
    expect(head.readUInt32LE(0) === CENTRAL, `no central header for ${file.path}`)
    expect(head.readUInt32LE(16) === file.crc, `${file.path}: central CRC-32`)
    expect(head.readUInt32LE(20) === file.size, `${file.path}: central compressed size`)
    expect(head.readUInt32LE(24) === file.size, `${file.path}: central size`)
    expect(head.readUInt32LE(42) === offsets[i], `${file.path}: central offset`)
    const name = (await input.take(head.readUInt16LE(28))).toString('utf8')
    expect(name === file.path, `central entry ${i + 1}: '${name}', expected '${file.path}'`)
    await input.take(head.readUInt16LE(30) + head.readUInt16LE(32))
  }
  const directorySize = input.position - directoryAt
  const end = await input.take(22)
  expect(end.readUInt32LE(0) === END, 'no end of central directory')
  expect(end.readUInt16LE(10) === files.length, `the directory counts ${end.readUInt16LE(10)}`)
  expect(end.readUInt32LE(12) === directorySize, 'the directory size is wrong')
  expect(end.readUInt32LE(16) === directoryAt, 'the directory offset is wrong')
  expect(await input.done(), 'bytes after the end of central directory')
  return files.length
}

/** Exact reads over a stream of chunks, keeping no more than the bytes asked for. */
class Bytes {
  constructor(chunks) {
    this.iterator = chunks[Symbol.asyncIterator]()
    this.buffer = Buffer.alloc(0)
    this.position = 0
  }

  async fill() {
    const { done, value } = await this.iterator.next()
    if (done) throw new Error(`the archive ends early, at byte ${this.position}`)
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, value]) : Buffer.from(value)
  }

  async take(n) {
    while (this.buffer.length < n) await this.fill()
    const out = this.buffer.subarray(0, n)
    this.buffer = this.buffer.subarray(n)
    this.position += n
    return out
  }

  async pass(n, each) {
    while (n > 0) {
      if (this.buffer.length === 0) await this.fill()
      const part = this.buffer.subarray(0, Math.min(n, this.buffer.length))
      each(part)
      this.buffer = this.buffer.subarray(part.length)
      this.position += part.length
      n -= part.length
    }
  }

  async done() {
    return this.buffer.length === 0 && (await this.iterator.next()).done
  }
}

function expect(condition, message) {
  if (!condition) throw new Error(`archive: ${message}`)
}
