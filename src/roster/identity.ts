/**
 * Who a Session is, and what its agent is told (pure): the identity section (order 5, every Bot
 * Session: name, role label, the person's instructions; re-rendered when they change) and the team
 * section (order 20, own chats: its role and the team around it, rendered once per part and saved
 * with it, so it is byte-stable; `bench overhead` counts it). Up to `TEAM_LISTED` Bots and groups are
 * named; beyond that the section gives counts and points at `list_bots`, so it does not grow with
 * the team. Nothing per turn (who is speaking, budgets, modes) is put here.
 */
import type { Role } from '../core/offer.ts'
import type { Bot, Group, TeamState } from '../store/index.ts'

/** The Session id of the Bot's current part (its own chat), if it has one. */
export function currentPart(bot: Bot): string | undefined {
  return bot.sessionParts.at(-1)?.sessionId
}

export function liveBotList(state: Readonly<TeamState>): Bot[] {
  return Object.values(state.bots).filter((b) => !b.deleted)
}

export function liveGroupList(state: Readonly<TeamState>): Group[] {
  return Object.values(state.groups).filter((g) => !g.deleted)
}

export const IDENTITY_SECTION = 'botteam:identity'
export const TEAM_SECTION = 'botteam:team'
/** How many other Bots (and groups) the team section names before it gives counts instead. */
export const TEAM_LISTED = 6

/** The Bot's identity: who it is (the role it has on the team is in the team section). */
export function identityText(bot: Bot): string {
  const lines = [`You are ${bot.name}${bot.role ? `, the team's ${bot.role}` : ''}, a long-lived Bot on a team of Bots in DeepSeek Harness (id ${bot.id}).`]
  if (bot.instructions.trim()) lines.push('', 'Your instructions from the user:', bot.instructions.trim())
  return lines.join('\n')
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/**
 * The team section of an own chat: the Bot's role, the team when the part started (named up to
 * `TEAM_LISTED`, counted beyond), and the one rule about refusals.
 */
export function teamText(state: Readonly<TeamState>, botId: string, role: Role): string {
  const others = liveBotList(state)
    .filter((b) => b.id !== botId)
    .sort((a, b) => Number(b.main) - Number(a.main) || a.name.localeCompare(b.name))
  const groups = liveGroupList(state)
    .filter((g) => role.main || g.members.includes(botId) || g.admin === botId)
    .sort((a, b) => a.name.localeCompare(b.name))
  const who = (b: Bot) => {
    const tags = [b.role, b.main ? 'Main Bot' : ''].filter(Boolean).join(', ')
    return tags ? `${b.name} (${tags})` : b.name
  }
  const group = (g: Group) => (g.admin === botId ? `${g.name} (you admin it)` : g.name)
  const bots =
    others.length === 0
      ? 'no other Bots'
      : others.length <= TEAM_LISTED
        ? others.map(who).join(', ')
        : `${plural(others.length, 'other Bot')} (${plural(others.filter((b) => b.main).length, 'Main Bot')})`
  const rooms =
    groups.length === 0 ? '' : `; ${role.main ? 'groups' : 'your groups'}: ${groups.length <= TEAM_LISTED ? groups.map(group).join(', ') : groups.length}`
  return [
    `${role.main ? 'You are a Main Bot. ' : ''}The team when this part started: ${bots}${rooms}. list_bots shows it now.`,
    'If a team tool refuses, tell the user why; do not work around it.',
  ].join('\n')
}

const STANDING: Record<Role['groups'], string> = {
  admin: 'you are now the admin of a group',
  member: 'you are now in a group (not as its admin)',
  none: 'you are now in no group',
}

/**
 * The line a Bot is told when its role changed from `before` (what it was last told, or its part's
 * role) to `now`; undefined when nothing that part's tools or text depend on changed. A member
 * Session depends only on whether it is its group's admin.
 */
export function roleChangeText(before: Role, now: Role, frozen: Role): string | undefined {
  const changes: string[] = []
  if (now.kind === 'own' && now.main !== before.main) changes.push(now.main ? 'you are now a Main Bot' : 'you are no longer a Main Bot')
  if (now.groups !== before.groups)
    changes.push(
      now.kind === 'member' ? (now.groups === 'admin' ? "you are now this group's admin" : "you are no longer this group's admin") : STANDING[now.groups],
    )
  if (!changes.length) return undefined
  const fits = now.groups === frozen.groups && (now.kind === 'member' || now.main === frozen.main)
  return `Team change: ${changes.join('; ')}. ${fits ? 'The tools of this part fit that again.' : 'Your tools follow at your next part; until then a tool may refuse.'}`
}
