/**
 * A Bot's network level (pure): `none`, `internet` (the default) or `full`, ranked strictest first;
 * the strictest of several (delegation never widens the network); what each level means. No Node
 * module (the browser half reads it too); the refused ranges are `refused-ranges.ts`.
 */

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

/** The owner name of a Bot's namespace sets. */
export const botOwner = (botId: string) => `bot:${botId}`
/** The owner of the person's release check's sets (never `full`). */
export const RELEASE_OWNER = 'release'
/** The owner of the plugin's own confined steps in folders no Bot owns (start-up sweeps), always at `none`. */
export const PLUGIN_OWNER = 'plugin'

/** What each level means, in the person's words (the team page, refusals). */
export const LEVEL_WORDS: Readonly<Record<NetworkLevel, string>> = {
  none: 'no network: its shell reaches nothing, not even the internet',
  internet: 'the internet only: never this machine, its loopback, the local network or cloud metadata',
  full: "the machine's whole network, as DSH alone gives it: this machine's services, DSH's own /api (which answers it as it answers you), the local network and the internet",
}
