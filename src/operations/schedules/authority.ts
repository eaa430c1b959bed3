/**
 * Who may set or delete a scheduled task (pure) — through the team's one authority function.
 *
 * A task is future work in the target's name, so it needs what doing that work now needs, asked of
 * `decide` (`src/roster/authority.ts`): a task for another Bot is a message to it (`message_bot`),
 * a task for a group is a post there (`post_to_group`: Main Bots, the group's admin), a task for
 * the calling Bot itself needs only that the caller is a Bot of the team (`list_bots`). On top, a
 * Bot sets or deletes tasks only in a turn the user opened ("when the user asks"; a turn started by
 * another Bot, a room or a timer is refused — a task cannot breed tasks). The person (team page,
 * HTTP) may do all of it.
 *
 * Deliberately does not: look anything up (the service passes the facts) or check limits.
 */
import { decide, type Caller, type Decision } from '../../core/authority.ts'

export interface ScheduleTarget {
  botId?: string
  groupId?: string
  callerIsGroupAdmin?: boolean
  /** The calling Bot's current turn was opened by the user. */
  userAsked: boolean
}

const NOT_ASKED =
  'Schedules are added or removed only when the user asks for it, and this turn was not opened by the user (another Bot, a room or a timer started it). Tell the user what you would schedule; they can ask you in your own chat or use the team page.'

export function decideSchedule(caller: Caller, target: ScheduleTarget): Decision {
  if (caller.kind === 'user') return { allowed: true }
  const identity = decide(caller, 'list_bots', {})
  if (!identity.allowed) return identity
  if (!target.userAsked) return { allowed: false, reason: NOT_ASKED }
  if (target.groupId !== undefined)
    return decide(caller, 'post_to_group', { groupId: target.groupId, ...(target.callerIsGroupAdmin ? { callerIsGroupAdmin: true } : {}) })
  if (target.botId === undefined || target.botId === caller.botId) return { allowed: true }
  return decide(caller, 'message_bot', { botId: target.botId })
}
