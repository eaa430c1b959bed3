/**
 * The roster's team tools, registered only on Bot agents (`agent.ctx`): `list_bots`,
 * `list_models`, `create_bot`, `update_bot`, `delete_bot`.
 *
 * Every tool identifies its caller from the calling Session (`exec.agent`), asks the roster (which
 * asks the pure `decide`) and answers in plain text: refusals and validation errors are answers
 * the model can read and act on, not thrown errors. Deliberately narrow: wording and argument
 * shapes only; the roster service does the work.
 */
import type { ToolDefinition, ToolExecution } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import type { Bot } from '../store/index.ts'
import type { BotRoster } from './service.ts'
import { answer, textOutput } from '../core/refusal.ts'
import { requesterOf } from '../core/caller.ts'

export interface BotSummary {
  id: string
  name: string
  role: string
  main: boolean
  model?: string | undefined
  /** Absent: the team workspace. */
  workFolder?: string | undefined
}

export function summary(b: Bot): BotSummary {
  return { id: b.id, name: b.name, role: b.role, main: b.main, model: b.model, ...(b.workFolder ? { workFolder: b.workFolder } : {}) }
}

/** The model-facing answer of `list_bots` (pure). */
export function renderBotList(bots: readonly BotSummary[]): string {
  if (bots.length === 0) return 'The team has no Bots yet.'
  const lines = bots.map((b) => {
    const tags = [b.role || undefined, b.main ? 'Main Bot' : undefined, b.model].filter(Boolean).join(', ')
    return `- ${b.name} (id ${b.id}${tags ? `; ${tags}` : ''})`
  })
  return `The team has ${bots.length} Bot${bots.length === 1 ? '' : 's'}:\n${lines.join('\n')}`
}

const text = textOutput

const MAIN_ONLY = 'Main Bots only.'

const ONLY_WHEN_ASKED = 'Main Bots only, and only when the user asks for it (checked: a turn another Bot, a room, a timer or a notice started is refused).'

const BOUNDED =
  "In a turn the user did not open it may not give a Bot a preset above the turn's own, nor make a Main Bot. Raising a preset is the person's act on the team page; ask them."

type Exec = Pick<ToolExecution, 'agent'>

export function botTools(roster: BotRoster): ToolDefinition[] {
  const caller = (exec: Exec) => roster.callerOf(exec.agent ? String(exec.agent.id) : undefined)
  return [
    defineTeamTool({
      name: 'list_bots',
      description: 'List the Bots of your team: name, id, role, whether it is a Main Bot, and its model (none = the DSH default).',
      parameters: {},
      output: text,
      isConcurrencySafe: () => true,
      async execute(_args, exec) {
        return answer(async () => {
          const verdict = roster.check(caller(exec), 'list_bots')
          if (!verdict.allowed) return `Refused: ${verdict.reason}`
          return renderBotList(roster.bots().map(summary))
        })
      },
    }),
    defineTeamTool({
      name: 'list_models',
      description: 'List the models a Bot can be given, as provider/model.',
      parameters: {},
      output: text,
      isConcurrencySafe: () => true,
      async execute(_args, exec) {
        const verdict = roster.check(caller(exec), 'list_models')
        if (!verdict.allowed) return `Refused: ${verdict.reason}`
        const models = await roster.models()
        return models.length ? `Models (provider/model):\n${models.map((m) => `- ${m}`).join('\n')}` : 'No models are configured.'
      },
    }),
    defineTeamTool({
      name: 'create_bot',
      description: `Create a new Bot on the team with its own chat. ${MAIN_ONLY} ${BOUNDED}`,
      parameters: {
        name: { type: 'string', required: true, description: 'Unique name, at most 40 characters, no "@".' },
        role: { type: 'string', description: 'Short role label, at most 24 characters (e.g. "Reviewer").' },
        instructions: { type: 'string', description: "The Bot's standing instructions." },
        model: { type: 'string', description: 'provider/model (see list_models); omit for the DSH default.' },
        permission_preset: {
          type: 'string',
          enum: ['read-only', 'workspace-write', 'danger-full-access'],
          description: 'What the Bot may do on this machine. Default workspace-write.',
        },
        main: { type: 'boolean', description: 'Make it a Main Bot too.' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const { permission_preset, ...rest } = args
          const bot = await roster.create(requesterOf(exec), { ...rest, ...(permission_preset ? { permissionPreset: permission_preset } : {}) })
          return `Created Bot ${bot.name} (id ${bot.id}) with its own chat.`
        })
      },
    }),
    defineTeamTool({
      name: 'update_bot',
      description: `Change a Bot: name, role, instructions, model, permission preset or Main Bot role. ${MAIN_ONLY} Another Bot only when the user asks for it (checked). ${BOUNDED} A model change keeps the Bot's name, instructions, memory and history.`,
      parameters: {
        bot: { type: 'string', required: true, description: 'The Bot to change, by name or id.' },
        name: { type: 'string' },
        role: { type: 'string' },
        instructions: { type: 'string' },
        model: { type: 'string', description: 'provider/model, or "default" for the DSH default.' },
        permission_preset: { type: 'string', enum: ['read-only', 'workspace-write', 'danger-full-access'] },
        main: { type: 'boolean' },
        work_folder: { type: 'string', description: "Only the person sets a Bot's working folder, on the team page; a Bot's request is refused." },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const { bot: ref, permission_preset, model, work_folder, ...rest } = args
          const patch = {
            ...rest,
            ...(work_folder !== undefined ? { workFolder: work_folder } : {}),
            ...(permission_preset ? { permissionPreset: permission_preset } : {}),
            ...(model !== undefined ? { model: model === 'default' ? null : model } : {}),
          }
          const bot = await roster.update(requesterOf(exec), ref, patch)
          return `Changed Bot ${bot.name} (id ${bot.id}).`
        })
      },
    }),
    defineTeamTool({
      name: 'delete_bot',
      description: `Delete a Bot: its running work is stopped, its queued messages are dropped, its chats are archived (not erased). ${ONLY_WHEN_ASKED}`,
      parameters: {
        bot: { type: 'string', required: true, description: 'The Bot to delete, by name or id.' },
        reason: { type: 'string', required: true, description: 'Why, in a sentence (recorded).' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const bot = await roster.delete(requesterOf(exec), args.bot, args.reason)
          return `Deleted Bot ${bot.name} (id ${bot.id}); its chats are archived and its data kept.`
        })
      },
    }),
  ]
}
