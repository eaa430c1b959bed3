/**
 * The rooms' configuration (pure zod): the limits that bound every round. The plugin entry passes
 * `{ limits }` from the plugin config's `rooms.limits`; anything not given takes `DEFAULT_LIMITS`.
 *
 * Deliberately narrow: no I/O; the meaning of each limit is documented on `RoomLimits` (policy.ts).
 */
import { z } from 'zod'
import { TEAM_LIMIT_FIELDS } from '../operations/limit-fields.ts'

export const RoomLimitsConfig = z.object({
  extraTurns: z.int().min(0).max(20),
  callsPerMember: z.int().min(1).max(10),
  callsPerAdmin: z.int().min(1).max(10),
  botRoundsPerUserMessage: z.int().min(0).max(50),
  turnTimeoutMs: z.int().min(10).max(3_600_000),
  windowPosts: z.int().min(1).max(200),
  windowPostChars: z.int().min(100).max(100_000),
}).partial().strict()

/** The plugin config's `rooms` section. */
export const RoomsSection = z.object({
  limits: RoomLimitsConfig.default({}),
})

/** The rooms service's config: the plugin's `rooms` section plus the team limits it enforces. */
export const RoomsConfig = RoomsSection.extend({
  /** Bot-started turns one message of the person may cause (member turns and reports draw from it). */
  workBudget: TEAM_LIMIT_FIELDS.workBudget.default(40),
  /** Live groups the team may have. */
  maxGroups: TEAM_LIMIT_FIELDS.maxGroups.default(30),
})
export type RoomsConfig = z.input<typeof RoomsConfig>
