/**
 * The plugin config's `rooms` section (pure zod): the limits that bound every round. Anything not
 * given takes `DEFAULT_LIMITS`; the values reach the rooms through `botLimits` (`configLimits`),
 * never through the rooms service's own config.
 *
 * Deliberately narrow: no I/O; the meaning of each limit is documented on `RoomLimits` (limits.ts).
 */
import { z } from 'zod'
import { RoomLimitsConfig } from '../core/limits.ts'

/** The plugin config's `rooms` section. */
export const RoomsSection = z.object({
  limits: RoomLimitsConfig.default({}),
})
