/**
 * Memory caps (pure): entry, `MEMORY.md`, topic, topic count and a scope's total, with refusals worded
 * so the model can act ("move details into a topic", "forget something first"); a file over its cap
 * may still shrink. Deliberately reads no files and decides no rights.
 */
import { z } from 'zod'

export const MemoryLimits = z.object({
  /** Characters in one entry. */
  entry: z.int().min(20).max(2_000).default(300),
  /** Characters in one scope's MEMORY.md (all of it goes into every prompt of the scope's Bots). */
  memoryFile: z.int().min(200).max(50_000).default(4_000),
  /** Characters in one topic file. */
  topicFile: z.int().min(200).max(200_000).default(16_000),
  /** Topic files per scope. */
  topics: z.int().min(0).max(500).default(40),
  /** Characters in all files of one scope together. */
  scopeTotal: z.int().min(200).max(5_000_000).default(64_000),
})
export type MemoryLimits = z.output<typeof MemoryLimits>

/** A scope's files as sizes: MEMORY.md and each topic (characters). */
export interface ScopeSizes {
  memory: number
  topics: Record<string, number>
}

export interface ProposedChange {
  /** `undefined`: MEMORY.md. */
  topic?: string
  /** Size of the changed file after the change. */
  after: number
  /** The new entry's text, when the change adds or replaces one. */
  entry?: string
}

const total = (s: ScopeSizes) => s.memory + Object.values(s.topics).reduce((a, b) => a + b, 0)

/** Why the change is refused, or undefined when it fits (pure). */
export function capProblem(limits: MemoryLimits, sizes: ScopeSizes, change: ProposedChange, scopeLabel: string): string | undefined {
  if (change.entry !== undefined) {
    const length = [...change.entry].length
    if (length > limits.entry) {
      return `the entry is ${length} characters; an entry may have at most ${limits.entry}. Save one short fact per entry, and put longer details into a topic as several entries (remember with a topic).`
    }
  }
  const before = change.topic === undefined ? sizes.memory : sizes.topics[change.topic]
  const isNewTopic = change.topic !== undefined && before === undefined
  if (isNewTopic && Object.keys(sizes.topics).length >= limits.topics) {
    return `${scopeLabel} already has ${Object.keys(sizes.topics).length} topics, the most allowed. Add this to an existing topic (${Object.keys(sizes.topics).slice(0, 10).join(', ')}), or forget a topic's entries first.`
  }
  const grows = change.after > (before ?? 0)
  if (grows && change.topic === undefined && change.after > limits.memoryFile) {
    return `${scopeLabel}'s MEMORY.md would be ${change.after} characters; it may have at most ${limits.memoryFile}. Make room first: forget or shorten entries there, or move details into a topic.`
  }
  if (grows && change.topic !== undefined && change.after > limits.topicFile) {
    return `topic "${change.topic}" would be ${change.after} characters; a topic may have at most ${limits.topicFile}. Forget entries in it first, or start another topic.`
  }
  const totalAfter = total(sizes) - (before ?? 0) + change.after
  if (grows && totalAfter > limits.scopeTotal) {
    return `${scopeLabel} would hold ${totalAfter} characters in all; a memory scope may hold at most ${limits.scopeTotal}. Forget something first (recall shows what is there).`
  }
  return undefined
}
