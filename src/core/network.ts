/**
 * A Bot's network level (pure): `none`, `internet` (the default) or `full`, ranked strictest first;
 * the strictest of several (delegation never widens the network); the address ranges a Bot at
 * `internet` may not reach (the machine's own addresses are added at run time), as nft set text
 * and as a `BlockList`. Deliberately no I/O: the namespaces live in `src/network`.
 */
import { BlockList, isIP } from 'node:net'

/** Network levels, strictest first. */
export const NETWORK_LEVELS = ['none', 'internet', 'full'] as const
export type NetworkLevel = (typeof NETWORK_LEVELS)[number]

/** Every Bot's level unless the person sets another. */
export const DEFAULT_NETWORK_LEVEL: NetworkLevel = 'internet'

/** Rank (higher = more network); anything unknown ranks as the default. */
export function networkRank(level: string | undefined): number {
  const i = (NETWORK_LEVELS as readonly string[]).indexOf(level ?? '')
  return i < 0 ? NETWORK_LEVELS.indexOf(DEFAULT_NETWORK_LEVEL) : i
}

/** A level as a known level (unknown or absent: the default). */
export function asNetworkLevel(level: string | undefined): NetworkLevel {
  return NETWORK_LEVELS[networkRank(level)]!
}

/** The strictest of the given levels (absent ones do not count; none given: undefined). */
export function strictestLevel(...levels: readonly (NetworkLevel | undefined)[]): NetworkLevel | undefined {
  let out: NetworkLevel | undefined
  for (const level of levels) if (level !== undefined && (out === undefined || networkRank(level) < networkRank(out))) out = level
  return out
}

/** True when `next` reaches more than `current`. */
export function widensNetwork(current: NetworkLevel, next: NetworkLevel): boolean {
  return networkRank(next) > networkRank(current)
}

/** The owner name of a Bot's namespace sets (the release check's is `release`). */
export const botOwner = (botId: string) => `bot:${botId}`

/** What each level means, in the person's words (the team page, refusals). */
export const LEVEL_WORDS: Readonly<Record<NetworkLevel, string>> = {
  none: 'no network: its shell reaches nothing, not even the internet',
  internet: 'the internet only: never this machine, its loopback, the local network or cloud metadata',
  full: "the machine's whole network, as DSH alone gives it: this machine's services, DSH's own /api (which answers it as it answers you), the local network and the internet",
}

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
