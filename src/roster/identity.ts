/**
 * Who a Session is, and what its agent is told (pure).
 *
 * Owns the text of the identity section a Bot's agent sees (in its own chat and in its group
 * Sessions) and the team rules section of its own chat. The roster registers both on the agent's
 * own scope (identity at order 5, team rules at order 20), so plain Sessions never see or pay for
 * them.
 *
 * Token and prompt-cache effect (estimated as chars / 4, as `bench/rooms.ts` does): identity is
 * about 55 tokens plus the Bot's instructions in the own chat, about 30 in a group Session (which
 * omits the promise of team tools it does not have); team rules are about 80 tokens of constant
 * text. DSH renders sections on every step; equal text keeps the cached
 * prefix byte-identical. The identity text changes only when the person (or a Main Bot) changes the
 * Bot's name, role, Main Bot flag or instructions; that step re-sends the prefix from the identity
 * section on, once. Nothing per turn (who is speaking, budgets, modes) is ever put here.
 *
 * Deliberately narrow: no DSH calls, no state changes.
 */
import type { Bot, TeamState } from '../store/index.ts'

/** The Session id of the Bot's current part (its own chat), if it has one. */
export function currentPart(bot: Bot): string | undefined {
  return bot.sessionParts.at(-1)?.sessionId
}

export function liveBotList(state: Readonly<TeamState>): Bot[] {
  return Object.values(state.bots).filter((b) => !b.deleted)
}

export const IDENTITY_SECTION = 'botteam:identity'
export const TEAM_RULES_SECTION = 'botteam:team-rules'

/**
 * The Bot's identity section: who it is on the team. In its own chat it also says what its role
 * lets it do with the team tools there; a group Session has none of those tools, so there it says
 * only who the Bot is (the room section explains how to speak).
 *
 * Token and prompt-cache effect: about 60 tokens plus the instructions; the text changes only when
 * the Bot's name, role, Main Bot flag or instructions change, so the cached prefix holds between
 * such edits (DSH re-renders sections per step; equal text keeps the prefix byte-identical).
 */
export function identityText(bot: Bot, where: 'own-chat' | 'group' = 'own-chat'): string {
  const lines = [`You are ${bot.name}${bot.role ? `, the team's ${bot.role}` : ''}, a long-lived Bot on a team of Bots in DeepSeek Harness (Bot id ${bot.id}).`]
  if (where === 'own-chat') {
    lines.push(
      bot.main
        ? 'You are a Main Bot: you may create, change and delete Bots (only when the user asks) and interrupt or stop other Bots.'
        : 'You are a team member. Creating, changing or deleting Bots, and interrupting or stopping Bots, is for Main Bots.',
    )
  }
  if (bot.instructions.trim()) lines.push('', 'Your instructions from the user:', bot.instructions.trim())
  return lines.join('\n')
}

export const TEAM_RULES_TEXT = [
  'Team rules:',
  '- Each Bot keeps its own chat; other Bots cannot see yours, so anything you send another Bot must be self-contained.',
  '- Call `list_bots` to see who is on the team and `list_models` to see which models a Bot can use.',
  '- The tools check who may do what; if a tool refuses, tell the user why instead of working around it.',
].join('\n')
