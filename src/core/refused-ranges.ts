/**
 * The address ranges a Bot at `internet` may not reach (pure): private, loopback, link-local, CGNAT,
 * ULA, multicast and reserved — the machine's own addresses are added at run time — as lists (the
 * packet filter's text) and as a `BlockList` (the web fetch check). Node only; no I/O.
 */
import { BlockList, isIP } from 'node:net'

/** IPv4 ranges refused at `internet`: this-network, private, CGNAT, loopback, link-local, IETF protocol, benchmarking, multicast, reserved. */
export const REFUSED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
] as const

/** IPv6 ranges refused at `internet`: unspecified and loopback, IPv4-mapped, local-use NAT64, ULA, link-local, site-local, multicast. */
export const REFUSED_V6 = ['::/127', '::ffff:0:0/96', '64:ff9b:1::/48', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8'] as const

/** The user-mode stack's resolver inside a Bot's namespace (slirp4netns' built-in DNS). */
export const STACK_DNS = '10.0.2.3'

/** A `BlockList` of the refused ranges plus `own` (this machine's addresses). */
export function refusedList(own: readonly string[] = []): BlockList {
  const list = new BlockList()
  for (const cidr of REFUSED_V4) {
    const [net, bits] = cidr.split('/')
    list.addSubnet(net!, Number(bits), 'ipv4')
  }
  for (const cidr of REFUSED_V6) {
    // Node's BlockList checks every IPv4 address against IPv4-mapped IPv6 rules too: a mapped
    // address is judged by the IPv4 address it carries instead (`refusedAddress`).
    if (cidr.startsWith('::ffff:')) continue
    const [net, bits] = cidr.split('/')
    list.addSubnet(net!, Number(bits), 'ipv6')
  }
  for (const address of own) {
    const family = isIP(address)
    if (family) list.addAddress(address, family === 4 ? 'ipv4' : 'ipv6')
  }
  return list
}

/** Whether an address (v4 or v6 literal) is one a Bot at `internet` may not reach; not an address: false. */
export function refusedAddress(address: string, list: BlockList): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const family = isIP(bare)
  if (!family) return false
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1] : undefined
  if (mapped) return list.check(mapped, 'ipv4') || list.check(bare, 'ipv6')
  return list.check(bare, family === 4 ? 'ipv4' : 'ipv6')
}
