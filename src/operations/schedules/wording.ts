/**
 * What a Bot reads when one of its scheduled tasks is due, and how a task is listed (pure).
 *
 * Token and prompt-cache effect: the task arrives as an ordinary user-role message at the end of the
 * conversation (one header line + the task's prompt, at most ~1,000 tokens), so it never touches
 * the system prompt or the cached prefix. No tool schema grows with the number of tasks.
 */
import type { Schedule } from '../../store/index.ts'
import { describeRule } from './rules.ts'

/** The message a due task enters into its Bot's chat. */
export function taskMessage(s: Pick<Schedule, 'id' | 'rule' | 'prompt'>, creatorName: string): string {
  return `[Schedule ${s.id} — ${describeRule(s.rule)}, set by ${creatorName}]\n\n${s.prompt}`
}

/** The post a due group task enters into the group's room. */
export function taskPost(s: Pick<Schedule, 'id' | 'prompt'>): string {
  return `[Schedule ${s.id}] ${s.prompt}`
}

/** One line per task, for the tool's answer. */
export function taskLine(s: Schedule, targetName: string, creatorName: string): string {
  const next = s.nextDueAt ? `next ${s.nextDueAt}` : 'done'
  const prompt = s.prompt.length > 80 ? `${s.prompt.slice(0, 79)}…` : s.prompt
  return `- ${s.id} for ${targetName}: ${describeRule(s.rule)}; ${next}; ran ${s.runs} time(s); set by ${creatorName}: "${prompt.replace(/\s+/g, ' ')}"`
}
