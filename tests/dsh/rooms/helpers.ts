// Shared set-up for the rooms tier: a team on the in-process DSH host, one scripted model per Bot
// (model id = the Bot's name in lower case, provider `mock`), and helpers to talk in a room.
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import type { Rule, ScriptMap } from '../../../scripts/scripted-model/format.ts'
import type { RoomLimits } from '../../../src/core/limits.ts'
import { startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { quiesce } from '../delivery/helpers.ts'

export const user = { kind: 'user' } as const

/** A team whose room limits come through the plugin config (turns time out after 2 s unless given). */
export async function team(scripts: Record<string, Rule>, opts: { home?: string; limits?: Partial<RoomLimits> } = {}): Promise<DshHost> {
  const map: ScriptMap = { mock: { fallback: { text: 'ok' } } }
  for (const [model, rule] of Object.entries(scripts)) map[model] = { fallback: rule }
  const { limits, ...host } = opts
  return startTeamHost(map, { ...host, config: { rooms: { limits: { turnTimeoutMs: 2_000, ...limits } } } })
}

/** Create Bots named `names`, each on its own scripted model (`mock/<lower-case name>`). */
export async function bots(host: DshHost, names: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {}
  for (const name of names) ids[name] = (await host.ctx.botRoster.create(user, { name, model: `mock/${name.toLowerCase()}` })).id
  return ids
}

export function roomOf(host: DshHost, group: string) {
  const g = host.ctx.botRooms.group(group)!
  const agent = host.ctx.agents.get(SessionId(g.roomSessionId!))!
  return agent
}

/** The user writes in the room; resolves when the room's turn (the round) is over. */
export async function say(host: DshHost, group: string, text: string) {
  const agent = roomOf(host, group)
  agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
  await agent.whenIdle()
  await host.ctx.sessions.flush(agent.session)
}

/**
 * Wait until the room is idle after a Bot's post, on events (no calm windows): the whole team goes
 * quiet (`quiesce`: the posting Bot's turn, the room's round, member turns, reports) and the room
 * has nothing left queued.
 */
export async function settle(host: DshHost, group: string) {
  await quiesce(host)
  const room = roomOf(host, group)
  if (room.status !== 'idle' || room.inbox.hasPending) throw new Error(`room ${group} is still busy after the team went quiet`)
}

/** Names of the Bots whose models got loop requests, in order (member turns). */
export function speakers(host: DshHost, names: string[]): string[] {
  const byModel = new Map(names.map((n) => [n.toLowerCase(), n]))
  return host.adapter.model
    .loopRequests()
    .filter((r) => byModel.has(r.model))
    .map((r) => byModel.get(r.model)!)
}

/** The room's assistant texts (the visible log), joined. */
export function roomLog(host: DshHost, group: string): string {
  return roomOf(host, group)
    .session.events.filter((e) => e.type === 'assistant/message')
    .map((e: any) =>
      e.data.message.content
        .filter((b: any) => b.type === 'text')
        .map((b: any) => b.text)
        .join(''),
    )
    .join('\n')
}
