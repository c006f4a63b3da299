import type { FileHandle } from 'node:fs/promises'
import { CliError } from './errors'

// Reading a version's archive from a file: its central directory, then each entry's bytes where
// its local header says they start. The archive's entries are stored (not compressed), which is
// all this reads; sizes and CRC-32s come from the directory, as the zip is streamed with them
// after each entry.

export type ZipEntry = { name: string; offset: number; size: number; crc: number }

const END_SIG = 0x06054b50
const CENTRAL_SIG = 0x02014b50
const LOCAL_SIG = 0x04034b50
const END_SIZE = 22
const MAX_COMMENT = 0xffff
const utf8 = new TextDecoder('utf-8', { fatal: true })

const broken = (why: string) => new CliError(`the archive is not readable: ${why}`, 'bad_response')

/** Every entry of the zip in `file` (`size` bytes long), with where its bytes start. */
export async function zipEntries(file: FileHandle, size: number): Promise<ZipEntry[]> {
  const tailSize = Math.min(size, END_SIZE + MAX_COMMENT)
  const tail = await readAt(file, size - tailSize, tailSize)
  let end = -1
  for (let i = tail.length - END_SIZE; i >= 0; i--) {
    if (tail.readUInt32LE(i) === END_SIG) {
      end = i
      break
    }
  }
  if (end < 0) throw broken('no end of central directory')
  const count = tail.readUInt16LE(end + 10)
  const dirSize = tail.readUInt32LE(end + 12)
  const dirOffset = tail.readUInt32LE(end + 16)
  if (count === 0xffff || dirOffset === 0xffffffff) throw broken('zip64 is not supported')
  if (dirOffset + dirSize > size) throw broken('the central directory lies past the end')
  const dir = await readAt(file, dirOffset, dirSize)
  const entries: ZipEntry[] = []
  for (let at = 0, n = 0; n < count; n++) {
    if (at + 46 > dir.length || dir.readUInt32LE(at) !== CENTRAL_SIG) {
      throw broken('a damaged central directory')
    }
    const method = dir.readUInt16LE(at + 10)
    const crc = dir.readUInt32LE(at + 16)
    const compressed = dir.readUInt32LE(at + 20)
    const length = dir.readUInt32LE(at + 24)
    const nameLength = dir.readUInt16LE(at + 28)
    const skip = dir.readUInt16LE(at + 30) + dir.readUInt16LE(at + 32)
    const local = dir.readUInt32LE(at + 42)
    const name = decode(dir.subarray(at + 46, at + 46 + nameLength))
    if (method !== 0 || compressed !== length) throw broken(`'${name}' is compressed`)
    const header = await readAt(file, local, 30)
    if (header.readUInt32LE(0) !== LOCAL_SIG) throw broken(`no local header for '${name}'`)
    const offset = local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28)
    if (offset + length > size) throw broken(`'${name}' runs past the end`)
    entries.push({ name, offset, size: length, crc })
    at += 46 + nameLength + skip
  }
  return entries
}

// What a stored zip adds to its files' bytes, at most, per entry: the local header (30 bytes) and
// the central directory's (46), each with the name and room for extra fields (a zip64 one is 20
// or 28), and the data descriptor written after a streamed entry (16, or 24 for zip64). Once for
// the whole: the end records (22, and 76 more for zip64) and room for a short comment.
const ENTRY_OVERHEAD = 30 + 46 + 24 + 2 * 64
const END_OVERHEAD = 1024

/**
 * The most bytes an archive of these files may take: the sum of their sizes and the zip's own
 * records. A server sending more is not sending what it listed.
 */
export function archiveBound(files: { path: string; size: number }[]): number {
  return files.reduce(
    (sum, f) => sum + f.size + ENTRY_OVERHEAD + 2 * Buffer.byteLength(f.path),
    END_OVERHEAD,
  )
}

function decode(bytes: Buffer): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw broken('a name that is not UTF-8')
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  const { bytesRead } = await file.read(buffer, 0, length, position)
  if (bytesRead !== length) throw broken('it ends early')
  return buffer
}

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c
})

/** CRC-32 as zip computes it, carried over chunks: start with 0. */
export function crc32(crc: number, bytes: Uint8Array): number {
  let c = ~crc
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8)
  return ~c >>> 0
}
