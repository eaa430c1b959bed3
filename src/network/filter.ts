/**
 * The packet filter of a namespace set at `internet` (pure text for `nft -f -`): traffic on the
 * namespace's own loopback passes, the user-mode stack's DNS passes, and every packet to a refused
 * range or to one of this machine's addresses is rejected (a connect fails at once, never hangs).
 * The machine's addresses are two named sets, refreshed in place when they change. No I/O.
 */
import { isIP } from 'node:net'
import { REFUSED_V4, REFUSED_V6, STACK_DNS } from '../core/refused-ranges.ts'

export const TABLE = 'bot_team'

/** This machine's addresses split by family (literals only, zone ids dropped, de-duplicated, sorted). */
export function ownAddresses(addresses: readonly string[]): { v4: string[]; v6: string[] } {
  const v4 = new Set<string>()
  const v6 = new Set<string>()
  for (const raw of addresses) {
    const a = raw.replace(/%.*$/, '')
    const family = isIP(a)
    if (family === 4) v4.add(a)
    else if (family === 6) v6.add(a.toLowerCase())
  }
  return { v4: [...v4].sort(), v6: [...v6].sort() }
}

const elements = (list: readonly string[]) => (list.length ? ` elements = { ${list.join(', ')} };` : '')

/** The whole ruleset for a fresh namespace (its only table). */
export function filterRuleset(own: readonly string[]): string {
  const { v4, v6 } = ownAddresses(own)
  return [
    `table inet ${TABLE} {`,
    `  set host4 { type ipv4_addr;${elements(v4)} }`,
    `  set host6 { type ipv6_addr;${elements(v6)} }`,
    '  chain output {',
    '    type filter hook output priority 0; policy accept;',
    '    oifname "lo" accept',
    `    ip daddr ${STACK_DNS} udp dport 53 accept`,
    `    ip daddr ${STACK_DNS} tcp dport 53 accept`,
    '    ip daddr @host4 reject',
    '    ip6 daddr @host6 reject',
    `    ip daddr { ${REFUSED_V4.join(', ')} } reject`,
    `    ip6 daddr { ${REFUSED_V6.join(', ')} } reject`,
    '  }',
    '}',
    '',
  ].join('\n')
}

/** The commands that replace the machine's addresses in a live filter (one `nft -f -` transaction). */
export function refreshRuleset(own: readonly string[]): string {
  const { v4, v6 } = ownAddresses(own)
  const add = (set: string, list: readonly string[]) => (list.length ? [`add element inet ${TABLE} ${set} { ${list.join(', ')} }`] : [])
  return [`flush set inet ${TABLE} host4`, `flush set inet ${TABLE} host6`, ...add('host4', v4), ...add('host6', v6), ''].join('\n')
}
