/**
 * The team's limits in force (pure): `effectiveLimits` — the person's override where set, else the
 * config — which `botLimits` answers every service with at each check; the bounds of each limit;
 * `raisedLimits`, the overrides that let Bots do more. Deliberately reads no state, words no refusal.
 */
import { z } from 'zod'

/** The bounds of each team limit: the plugin config and the person's overrides build on these. */
export const TEAM_LIMIT_FIELDS = {
  hopLimit: z.int().min(1).max(50),
  sendsPerTurn: z.int().min(1).max(100),
  workBudget: z.int().min(1).max(10_000),
  maxBots: z.int().min(1).max(1000),
  maxGroups: z.int().min(1).max(1000),
  createsPerTurn: z.int().min(1).max(100),
  botTurnsAtOnce: z.int().min(1).max(100),
  keepFinished: z.int().min(0).max(10_000),
  /** How long a task's attempt may go without a step before its lease runs out (the ledger's own bounds). */
  taskLeaseMs: z
    .int()
    .min(1_000)
    .max(24 * 3_600_000),
}

/** The bounds of each room limit (every one optional: a missing one takes `DEFAULT_LIMITS`). */
export const RoomLimitsConfig = z
  .object({
    extraTurns: z.int().min(0).max(20),
    callsPerMember: z.int().min(1).max(10),
    callsPerAdmin: z.int().min(1).max(10),
    botRoundsPerUserMessage: z.int().min(0).max(50),
    turnTimeoutMs: z.int().min(10).max(3_600_000),
    windowPosts: z.int().min(1).max(200),
    windowPostChars: z.int().min(100).max(100_000),
  })
  .partial()
  .strict()

export interface RoomLimits {
  /** Turns per round = members + this. */
  extraTurns: number
  /** Times one member may be called in one round. */
  callsPerMember: number
  /** The admin's calls per round. */
  callsPerAdmin: number
  /** Rounds Bots may start in a group before the user speaks there again. */
  botRoundsPerUserMessage: number
  /** A member's turn that takes longer is cancelled and marked missed. */
  turnTimeoutMs: number
  /** Posts shown to a member per turn (the newest; older ones are counted, not shown). */
  windowPosts: number
  /** A post longer than this is cut in a member's window. */
  windowPostChars: number
}

export const DEFAULT_LIMITS: Readonly<RoomLimits> = Object.freeze({
  extraTurns: 2,
  callsPerMember: 2,
  callsPerAdmin: 3,
  botRoundsPerUserMessage: 3,
  turnTimeoutMs: 120_000,
  windowPosts: 20,
  windowPostChars: 4_000,
})

export interface TeamLimits {
  /** Bot-to-Bot messages one chain may go through. */
  hopLimit: number
  /** `message_bot` calls one turn may make. */
  sendsPerTurn: number
  /** Bot-started turns one message of the person may cause. */
  workBudget: number
  maxBots: number
  maxGroups: number
  /** Bots and groups one turn may create. */
  createsPerTurn: number
  /** Bot-started turns that may run at once. */
  botTurnsAtOnce: number
  /** Finished delivery records kept in team state. */
  keepFinished: number
  /** A task attempt's lease: renewed at its turn's steps, it runs out after this long without one. */
  taskLeaseMs: number
}

/** Every limit the person may change, flat (team and room names do not clash). */
export type Limits = TeamLimits & RoomLimits
export type LimitKey = keyof Limits

/** The person's overrides in team state: each one optional, each within the config's bounds. */
export const LimitOverrides = z.object(TEAM_LIMIT_FIELDS).partial().extend(RoomLimitsConfig.shape).strict()
export type LimitOverrides = z.infer<typeof LimitOverrides>

export const TEAM_LIMIT_KEYS = Object.keys(TEAM_LIMIT_FIELDS) as (keyof TeamLimits)[]
export const ROOM_LIMIT_KEYS = Object.keys(DEFAULT_LIMITS) as (keyof RoomLimits)[]
export const LIMIT_KEYS: readonly LimitKey[] = [...TEAM_LIMIT_KEYS, ...ROOM_LIMIT_KEYS]

/** The plugin config's values, flat: its `team` section and `rooms.limits` over the rooms' defaults. */
export function configLimits(config: { team: TeamLimits; rooms: { limits: Partial<RoomLimits> } }): Limits {
  return { ...config.team, ...DEFAULT_LIMITS, ...config.rooms.limits }
}

/**
 * The limits in force for the keys the caller enforces: the override where set, else `config`'s
 * value. Keys of `overrides` the caller did not ask for are ignored; the result is a new object.
 */
export function effectiveLimits<K extends LimitKey>(config: Pick<Limits, K>, overrides: LimitOverrides | undefined): Pick<Limits, K> {
  const out = { ...config }
  if (!overrides) return out
  for (const key of Object.keys(config) as K[]) {
    const value = overrides[key]
    if (value !== undefined) out[key] = value as Limits[K]
  }
  return out
}

/**
 * The keys whose new value lets Bots do more than now: a bigger number, except `keepFinished`,
 * which only keeps more history and grants nothing. `next` holds the would-be limits in force.
 */
export function raisedLimits(now: Limits, next: Limits): LimitKey[] {
  return LIMIT_KEYS.filter((key) => key !== 'keepFinished' && next[key] > now[key])
}
