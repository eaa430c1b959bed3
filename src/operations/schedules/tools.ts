/**
 * The schedule tools on a Bot's own-chat agent: `schedule_task`, `list_scheduled_tasks`,
 * `delete_scheduled_task`.
 *
 * Thin adapters: flat arguments a model fills in easily (`time` + optional `days` instead of
 * nested rules) become the service's input; the service validates everything and decides who may
 * (a Bot only when the user asked, `authority.ts`). Refusals are answers, not throws.
 *
 * Token effect: three tool schemas (~350 tokens) in every own-chat request; stable, so they stay in
 * the cached prefix.
 */
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../../dsh/team-tool.ts'
import { answer, textOutput } from '../../core/refusal.ts'
import { requesterOf as from } from '../../core/caller.ts'
import type { BotSchedules } from './service.ts'
import { describeRule } from './rules.ts'
import { taskLine } from './wording.ts'

/** The system's own time zone, the default for daily/weekly tasks. */
function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

/** Flat tool arguments → the service's input (pure). Unknown combinations are left for the service to refuse. */
export function toCreateInput(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { prompt: args.prompt }
  if (args.bot !== undefined && args.bot !== '') out.bot = args.bot
  if (args.group !== undefined && args.group !== '') out.group = args.group
  if (args.at !== undefined && args.at !== '') out.at = args.at
  if (args.every_minutes !== undefined) out.every_minutes = args.every_minutes
  if (args.time !== undefined && args.time !== '') {
    const time_zone = typeof args.time_zone === 'string' && args.time_zone ? args.time_zone : localZone()
    const days = typeof args.days === 'string' ? args.days.split(/[\s,]+/).filter(Boolean) : Array.isArray(args.days) ? args.days : []
    if (days.length) out.weekly = { days, time: args.time, time_zone }
    else out.daily = { time: args.time, time_zone }
  }
  return out
}

export function scheduleTools(schedules: Pick<BotSchedules, 'create' | 'delete' | 'list' | 'nameOf'>): ToolDefinition[] {
  return [
    defineTeamTool({
      name: 'schedule_task',
      description:
        'Only when the user asks for it: set a task that runs later — once (at), daily (time), weekly (time + days) or every N minutes (at least 5). When it is due you (or the named Bot) get the prompt as a new message; a group task is posted to the group. Give exactly one of: at, time, every_minutes.',
      parameters: {
        prompt: { type: 'string', required: true, description: 'What to do when it is due, self-contained.' },
        bot: { type: 'string', description: 'The Bot the task is for (default: you).' },
        group: { type: 'string', description: 'A group to post the task to, instead of a Bot.' },
        at: { type: 'string', description: 'Once, at this ISO-8601 time with offset, e.g. 2026-05-01T09:00:00+02:00.' },
        time: { type: 'string', description: 'Daily (or weekly with days) at this time, HH:MM (24 h).' },
        days: { type: 'string', description: 'With time: weekdays, e.g. "mon,wed,fri".' },
        time_zone: { type: 'string', description: "IANA time zone for time, e.g. Europe/Berlin (default: this computer's)." },
        every_minutes: { type: 'integer', description: 'Every N minutes (at least 5).' },
      },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => {
          const s = await schedules.create(from(exec), toCreateInput(args as Record<string, unknown>))
          return `Scheduled ${s.id} for ${schedules.nameOf(s.target)}: ${describeRule(s.rule)}; first due ${s.nextDueAt}.`
        })
      },
    }),
    defineTeamTool({
      name: 'list_scheduled_tasks',
      description: "List the team's scheduled tasks (id, for whom, when, next due).",
      parameters: {},
      output: textOutput,
      async execute() {
        return answer(async () => {
          const list = schedules.list()
          if (!list.length) return 'No scheduled tasks.'
          return list.map((s) => taskLine(s, schedules.nameOf(s.target), schedules.nameOf(s.createdBy))).join('\n')
        })
      },
    }),
    defineTeamTool({
      name: 'delete_scheduled_task',
      description: 'Only when the user asks for it: delete a scheduled task by its id (see list_scheduled_tasks).',
      parameters: {
        id: { type: 'string', required: true, description: 'The task id, e.g. schedule-3.' },
      },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => {
          const s = await schedules.delete(from(exec), String(args.id))
          return `Deleted ${s.id} (${describeRule(s.rule)} for ${schedules.nameOf(s.target)}).`
        })
      },
    }),
  ]
}
