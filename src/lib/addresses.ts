// What kind of place an address is (public, loopback, private or reserved), for the requests the
// service makes on someone's behalf (lib/public-url.ts), and which network a client's address
// belongs to, for the budgets counted per client (http/limits.ts).

export type AddressKind = 'public' | 'loopback' | 'private'

/** The kind of an IPv4 address in dotted form (the URL parser writes every IPv4 host so). */
export function ipv4Kind(host: string): AddressKind | null {
  const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)
  if (!parts) return null
  const [a, b, c] = parts.slice(1).map(Number)
  if (a === 127) return 'loopback'
  const nonPublic =
    a === 0 || // "this network"
    a === 10 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // TEST-NET-2
    (a === 203 && b === 0 && c === 113) || // TEST-NET-3
    a >= 224 // multicast, reserved, broadcast
  return nonPublic ? 'private' : 'public'
}

/**
 * The kind of an IPv6 address (without brackets). Only global unicast (2000::/3) outside the
 * ranges that wrap or document other addresses is public; an address that embeds an IPv4 one
 * (mapped, NAT64, 6to4) is what that address is.
 */
export function ipv6Kind(host: string): AddressKind | null {
  const words = ipv6Words(host)
  if (!words) return null
  const dotted = (high: number, low: number) =>
    `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
  if (words.slice(0, 7).every((w) => w === 0) && words[7] === 1) return 'loopback'
  // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address inside.
  const mapped = words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff
  const nat64 = words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)
  if (mapped || nat64) return ipv4Kind(dotted(words[6], words[7]))
  // 6to4 (2002::/16) carries its IPv4 address in the next two words.
  if (words[0] === 0x2002) return ipv4Kind(dotted(words[1], words[2]))
  const global = words[0] >= 0x2000 && words[0] <= 0x3fff
  // Teredo (2001::/32) and documentation (2001:db8::/32) are not places a receiver listens.
  const special = words[0] === 0x2001 && (words[1] === 0 || words[1] === 0xdb8)
  return global && !special ? 'public' : 'private'
}

/** The eight 16-bit words of an IPv6 address as the URL parser writes it, or null. */
export function ipv6Words(host: string): number[] | null {
  if (!/^[0-9a-f:.]+$/i.test(host)) return null
  let text = host
  // A trailing dotted IPv4 part stands for the last two words.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number)
    if ([a, b, c, d].some((n) => n > 255)) return null
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const parse = (part: string) => (part === '' ? [] : part.split(':'))
  const head = parse(halves[0])
  const tail = halves.length === 2 ? parse(halves[1]) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail]
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null
  return groups.map((g) => parseInt(g, 16))
}

/** The kind of an address as DNS answers it (A or AAAA record data), or null when it is not one. */
export function addressKind(address: string): AddressKind | null {
  return address.includes(':') ? ipv6Kind(address) : ipv4Kind(address)
}

/**
 * The network a client's address stands for when a budget is counted: an IPv4 address itself,
 * an IPv6 address's /64 (one subscriber's usual allocation, whose other addresses it can take
 * at will), and an IPv4 address written in IPv6 (mapped) as that address. Anything else (no
 * address, a malformed one) is returned as given: it still counts, apart.
 */
export function clientNetwork(address: string): string {
  const words = address.includes(':') ? ipv6Words(address.toLowerCase()) : null
  if (!words) return address
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) {
    return `${words[6] >> 8}.${words[6] & 255}.${words[7] >> 8}.${words[7] & 255}`
  }
  return `${words
    .slice(0, 4)
    .map((w) => w.toString(16))
    .join(':')}::/64`
}

/**
 * Whether a request came from the machine the service runs on: a loopback host, and a loopback
 * client address (local development, `wrangler dev`; never a request through Cloudflare's edge).
 */
export function fromThisMachine(request: Request): boolean {
  const host = new URL(request.url).hostname
  const address = request.headers.get('CF-Connecting-IP') ?? ''
  return ['127.0.0.1', 'localhost', '[::1]'].includes(host) && addressKind(address) === 'loopback'
}
