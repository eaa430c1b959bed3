/**
 * Who a Session is, and what its agent is told (pure).
 *
 * Owns the mapping from a DSH Session id to the Bot it belongs to (through the Bot's recorded
 * Session parts), `provider/model` parsing, and the text of the identity section a Bot's agent
 * sees. Deliberately narrow: no DSH calls, no state changes.
 */
import type { Bot, TeamState } from '../store/index.ts'

/** The live or deleted Bot whose Session parts include `sessionId`. */
export function botOfSession(state: Readonly<TeamState>, sessionId: string): Bot | undefined {
  for (const bot of Object.values(state.bots)) {
    if (bot.sessionParts.some((p) => p.sessionId === sessionId)) return bot
  }
  return undefined
}

/** The Session id of the Bot's current part (its own chat), if it has one. */
export function currentPart(bot: Bot): string | undefined {
  return bot.sessionParts.at(-1)?.sessionId
}

export function liveBotList(state: Readonly<TeamState>): Bot[] {
  return Object.values(state.bots).filter((b) => !b.deleted)
}

export interface ModelRoute {
  provider: string
  model: string
}

/** `provider/model` → route; the model part may itself contain slashes. */
export function parseModel(spec: string | undefined): ModelRoute | undefined {
  if (!spec) return undefined
  const at = spec.indexOf('/')
  if (at <= 0 || at === spec.length - 1) return undefined
  return { provider: spec.slice(0, at), model: spec.slice(at + 1) }
}

export const IDENTITY_SECTION = 'botteam:identity'
export const TEAM_RULES_SECTION = 'botteam:team-rules'

/** The Bot's identity section: who it is on the team. Stable text → stable prompt prefix. */
export function identityText(bot: Bot): string {
  const lines = [
    `You are ${bot.name}${bot.role ? `, the team's ${bot.role}` : ''}, a long-lived Bot on a team of Bots in DeepSeek Harness (Bot id ${bot.id}).`,
    bot.main
      ? 'You are a Main Bot: you may create, change and delete Bots (only when the user asks) and interrupt or stop other Bots.'
      : 'You are a team member. Creating, changing or deleting Bots, and interrupting or stopping Bots, is for Main Bots.',
  ]
  if (bot.instructions.trim()) lines.push('', 'Your instructions from the user:', bot.instructions.trim())
  return lines.join('\n')
}

export const TEAM_RULES_TEXT = [
  'Team rules:',
  '- Each Bot keeps its own chat; other Bots cannot see yours, so anything you send another Bot must be self-contained.',
  '- Call `list_bots` to see who is on the team and `list_models` to see which models a Bot can use.',
  '- The tools check who may do what; if a tool refuses, tell the user why instead of working around it.',
].join('\n')
