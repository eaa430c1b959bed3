/**
 * The roster's team tools on a Bot's own chat, by the role its part was offered for: `list_bots`
 * (the team, or with `models` the models a Bot can be given) and, for Main Bots, `manage_bot`
 * (create, update, delete: the actions `decide` could allow the role). Each names its caller from
 * the calling Session, lets the roster ask `decide`, and answers in plain text (refusals too).
 */
import type { ToolDefinition, ToolExecution } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import type { Bot, Group } from '../store/index.ts'
import type { Offer } from '../core/offer.ts'
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

/** The model-facing answer of `list_bots` (pure): the Bots, then the groups (names of members). */
export function renderBotList(bots: readonly BotSummary[], groups: readonly Group[] = []): string {
  if (bots.length === 0) return 'The team has no Bots yet.'
  const lines = bots.map((b) => {
    const tags = [b.role || undefined, b.main ? 'Main Bot' : undefined, b.model].filter(Boolean).join(', ')
    return `- ${b.name} (id ${b.id}${tags ? `; ${tags}` : ''})`
  })
  const out = [`The team has ${bots.length} Bot${bots.length === 1 ? '' : 's'}:`, ...lines]
  if (groups.length) {
    const name = (id: string) => bots.find((b) => b.id === id)?.name ?? id
    out.push(`Groups (${groups.length}):`)
    for (const g of groups)
      out.push(`- ${g.name} (id ${g.id}; ${g.mode} mode; admin ${g.admin ? name(g.admin) : 'none'}; members ${g.members.map(name).join(', ')})`)
  }
  return out.join('\n')
}

const text = textOutput
const PRESETS = ['read-only', 'workspace-write', 'danger-full-access']

type Exec = Pick<ToolExecution, 'agent'>

type BotAction = 'create' | 'update' | 'delete'
const BOT_ACTIONS = { create: 'create_bot', update: 'update_bot', delete: 'delete_bot' } as const

export function botTools(roster: BotRoster, offer: Offer): ToolDefinition[] {
  const caller = (exec: Exec) => roster.callerOf(exec.agent ? String(exec.agent.id) : undefined)
  const tools: ToolDefinition[] = [
    defineTeamTool({
      name: 'list_bots',
      description: 'List the team as it is now: Bots (id, role, model) and groups; models: the models a Bot can have.',
      parameters: { models: { type: 'boolean' } },
      output: text,
      isConcurrencySafe: () => true,
      async execute(args, exec) {
        return answer(async () => {
          const verdict = roster.check(caller(exec), args.models ? 'list_models' : 'list_bots')
          if (!verdict.allowed) return `Refused: ${verdict.reason}`
          if (!args.models) return renderBotList(roster.bots().map(summary), roster.groups())
          const models = await roster.models()
          return models.length ? `Models (provider/model):\n${models.map((m) => `- ${m}`).join('\n')}` : 'No models are configured.'
        })
      },
    }),
  ]
  const actions = (Object.keys(BOT_ACTIONS) as BotAction[]).filter((a) => offer.may(BOT_ACTIONS[a]))
  if (actions.length)
    tools.push(
      defineTeamTool({
        name: 'manage_bot',
        description:
          "Create, change or delete a Bot: another Bot only when the user asked this turn; in a turn the user did not open, no preset above the turn's, no Main Bot. Only the person raises a preset (team page). Deleting archives its chats.",
        parameters: {
          action: { type: 'string', enum: actions, required: true },
          bot: { type: 'string', description: 'Name or id (update, delete).' },
          name: { type: 'string' },
          role: { type: 'string' },
          instructions: { type: 'string' },
          model: { type: 'string', description: 'provider/model, or "default".' },
          permission_preset: { type: 'string', enum: PRESETS },
          main: { type: 'boolean' },
          reason: { type: 'string', description: 'Why (delete).' },
        },
        output: text,
        async execute(args, exec) {
          return answer(async () => {
            const { action, bot: ref, permission_preset, model, reason, ...fields } = args
            const preset = permission_preset ? { permissionPreset: permission_preset } : {}
            if (action === 'create') {
              const bot = await roster.create(requesterOf(exec), { ...fields, ...preset, ...(model && model !== 'default' ? { model } : {}) })
              return `Created Bot ${bot.name} (id ${bot.id}) with its own chat.`
            }
            if (!ref) return `Refused: name the Bot to ${action} (bot: its name or id).`
            if (action === 'delete') {
              const bot = await roster.delete(requesterOf(exec), ref, reason ?? '')
              return `Deleted Bot ${bot.name} (id ${bot.id}); its chats are archived and its data kept.`
            }
            const patch = { ...fields, ...preset, ...(model !== undefined ? { model: model === 'default' ? null : model } : {}) }
            const bot = await roster.update(requesterOf(exec), ref, patch)
            return `Changed Bot ${bot.name} (id ${bot.id}).`
          })
        },
      }),
    )
  return tools
}
