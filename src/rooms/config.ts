/**
 * The rooms' configuration (pure zod): the limits that bound every round. The plugin entry passes
 * `{ limits }` from the plugin config's `rooms.limits`; anything not given takes `DEFAULT_LIMITS`.
 *
 * Deliberately narrow: no I/O; the meaning of each limit is documented on `RoomLimits` (policy.ts).
 */
import { z } from 'zod'
import { RoomLimitsConfig, TEAM_LIMIT_FIELDS } from '../core/limits.ts'

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
