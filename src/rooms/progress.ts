/**
 * A running round's progress (pure): who is speaking, who posted, passed, missed or failed, whether
 * it is over — emitted as `bot-team/room-progress` for the team feed. Deliberately no I/O, no wording.
 */
import type { RoundRecord } from './rounds.ts'

export interface RoundProgress {
  groupId: string
  /** The post that started the round. */
  round: string
  /** The member whose turn runs now (absent between turns and at the end). */
  speaking?: string
  posted: string[]
  passed: string[]
  missed: string[]
  failed: string[]
  done: boolean
}

/** At most this many names in each list (a round has at most its turn cap of turns). */
export const PROGRESS_NAMES_MAX = 50

export function roundProgress(record: Readonly<RoundRecord>, name: (botId: string) => string, speaking?: string): RoundProgress {
  const of = (kinds: readonly string[]) =>
    record.turns
      .filter((t) => kinds.includes(t.outcome))
      .map((t) => name(t.botId))
      .slice(0, PROGRESS_NAMES_MAX)
  return {
    groupId: record.groupId,
    round: record.postId,
    ...(speaking !== undefined && !record.endedAt ? { speaking: name(speaking) } : {}),
    posted: of(['posted']),
    passed: of(['pass']),
    missed: of(['missed']),
    failed: of(['failed', 'stopped']),
    done: record.endedAt !== undefined,
  }
}
