/**
 * The bounds of each team limit (pure zod, no imports of the services): the plugin config, the
 * services' own config schemas and the person's overrides (`limits.ts`) all build on these, so the
 * numbers exist once. Each user adds its own default.
 */
import { z } from 'zod'

export const TEAM_LIMIT_FIELDS = {
  hopLimit: z.int().min(1).max(50),
  sendsPerTurn: z.int().min(1).max(100),
  workBudget: z.int().min(1).max(10_000),
  maxBots: z.int().min(1).max(1000),
  maxGroups: z.int().min(1).max(1000),
  createsPerTurn: z.int().min(1).max(100),
  botTurnsAtOnce: z.int().min(1).max(100),
  keepFinished: z.int().min(0).max(10_000),
}
