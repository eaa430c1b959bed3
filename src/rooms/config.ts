/**
 * The rooms' configuration (pure zod): the limits that bound every round. The plugin entry passes
 * `{ limits }` from the plugin config's `rooms.limits`; anything not given takes `DEFAULT_LIMITS`.
 *
 * Deliberately narrow: no I/O; the meaning of each limit is documented on `RoomLimits` (policy.ts).
 */
import { z } from 'zod'

export const RoomLimitsConfig = z.object({
  extraTurns: z.int().min(0).max(20),
  callsPerMember: z.int().min(1).max(10),
  callsPerAdmin: z.int().min(1).max(10),
  botRoundsPerUserMessage: z.int().min(0).max(50),
  turnTimeoutMs: z.int().min(10).max(3_600_000),
  windowPosts: z.int().min(1).max(200),
  windowPostChars: z.int().min(100).max(100_000),
}).partial().strict()

export const RoomsConfig = z.object({
  limits: RoomLimitsConfig.default({}),
})
export type RoomsConfig = z.input<typeof RoomsConfig>
