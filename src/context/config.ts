/**
 * The context steward's configuration (pure zod): the plugin config's `context` section. The
 * service adds the bot folder (`dir`), where handoff packages are written.
 *
 * Deliberately narrow: no I/O; the lines themselves are computed in `lines.ts`.
 */
import { z } from 'zod'

export const ContextSection = z.object({
  /** Check line as a share of the usable window (the hard line is 95 %). */
  checkRatio: z.number().gt(0).lte(0.95).default(0.8),
  /** `provider/model` for the steward and the handoff note; default: the Session's own route. */
  model: z
    .string()
    .regex(/^[^/\s]+\/\S+$/, 'context.model must look like provider/model')
    .optional(),
  /** Deadline of one steward decision. */
  stewardTimeoutMs: z.int().min(100).max(600_000).default(60_000),
  /** Deadline of one note-writing call. */
  noteTimeoutMs: z.int().min(100).max(900_000).default(180_000),
})

/** The service's config: the section plus the bot folder. */
export const ContextConfig = ContextSection.extend({ dir: z.string().min(1) })
