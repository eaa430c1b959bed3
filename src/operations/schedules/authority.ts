/**
 * Who may set or delete a scheduled task (pure), through `decide`: a task for another Bot is a
 * message to it, for a group a post there, for itself only being a Bot of the team — and a Bot only
 * in a turn the person opened. Deliberately looks nothing up.
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
