/**
 * The schedule tools on a Bot's own chat: `add_schedule`, `list_schedules`, `remove_schedule`.
 * Thin adapters: flat arguments a model fills in easily (`time` + optional `days` instead of
 * nested rules) become the service's input; the service validates everything and decides who may
 * (a Bot only when the user asked, `authority.ts`). Refusals are answers, not throws.
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
      name: 'add_schedule',
      description:
        'When the user asks: send a self-contained prompt to you, a Bot or a group later: once (at), daily (time), weekly (time, days) or every N minutes.',
      parameters: {
        prompt: { type: 'string', required: true },
        bot: { type: 'string', description: 'Default: you.' },
        group: { type: 'string' },
        at: { type: 'string', description: 'ISO 8601 with offset.' },
        time: { type: 'string', description: 'HH:MM' },
        days: { type: 'string', description: 'e.g. mon,fri' },
        time_zone: { type: 'string', description: 'IANA; default: local.' },
        every_minutes: { type: 'integer', description: 'At least 5.' },
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
      name: 'list_schedules',
      description: "List the team's schedules.",
      parameters: {},
      output: textOutput,
      async execute() {
        return answer(async () => {
          const list = schedules.list()
          if (!list.length) return 'No schedules.'
          return list.map((s) => taskLine(s, schedules.nameOf(s.target), schedules.nameOf(s.createdBy))).join('\n')
        })
      },
    }),
    defineTeamTool({
      name: 'remove_schedule',
      description: 'When the user asks: remove a schedule.',
      parameters: { id: { type: 'string', required: true } },
      output: textOutput,
      async execute(args, exec) {
        return answer(async () => {
          const s = await schedules.delete(from(exec), String(args.id))
          return `Removed ${s.id} (${describeRule(s.rule)} for ${schedules.nameOf(s.target)}).`
        })
      },
    }),
  ]
}
