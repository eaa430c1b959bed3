/**
 * Team tools and the team prompt section, as the model sees them.
 *
 * Owns the wording and the answers of the read-only roster tool `list_bots` and the text of the
 * team-rules section. Deliberately narrow: no authority decisions and no state changes here —
 * reading goes through the `readBots` callback the roster service supplies.
 */
import { defineTool, type ToolDefinition } from '@deepseek-ai/dsh-tools'
import type { TeamState } from '../store/index.ts'

export const TEAM_RULES_SECTION = 'botteam:team-rules'

export interface BotSummary {
  id: string
  name: string
  role: string
  main: boolean
  model?: string | undefined
}

/** The roster as the model and the UI see it: deleted Bots are gone, Main Bots first. */
export function liveBots(state: Readonly<TeamState>): BotSummary[] {
  return Object.values(state.bots)
    .filter((b) => !b.deleted)
    .sort((a, b) => Number(b.main) - Number(a.main) || a.name.localeCompare(b.name))
    .map((b) => ({ id: b.id, name: b.name, role: b.role, main: b.main, model: b.model }))
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

export function listBotsTool(readBots: () => readonly BotSummary[]): ToolDefinition {
  return defineTool({
    name: 'list_bots',
    description: 'List the Bots of your team: name, id, role, whether it is a Main Bot, and its model.',
    parameters: {},
    output: {
      schema: { type: 'string' },
      render: (_args, value) => [{ type: 'text', text: value }],
    },
    isConcurrencySafe: () => true,
    async execute() {
      return renderBotList(readBots())
    },
  })
}

export const TEAM_RULES_TEXT = [
  'You are a member of a team of long-lived Bots (the Bot Team plugin of DeepSeek Harness).',
  'Each Bot keeps its own chat; other Bots cannot see your chat, so anything you send another Bot',
  'must be self-contained. Call `list_bots` to see who is on the team.',
].join(' ')
