/**
 * The rooms' tools. `groupTools` go on own chats by the part's role (`manage_group` with the
 * actions of create, update, delete `decide` could allow it; `post_to_group`, `read_group_chat`);
 * `memberTools` on a member's group Session (`read_group_chat`, pinned to that group: a member
 * speaks by replying). Each names its caller from the calling Session, lets the service
 * ask `decide`, and answers in plain text (refusals too). Wording and argument shapes only.
 */
import { requesterOf } from '../core/caller.ts'
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import type { Group } from '../store/index.ts'
import { answer, textOutput } from '../core/refusal.ts'
import type { BotRooms } from './service.ts'
import type { Offer } from '../core/offer.ts'

const text = textOutput

/** All the tools may use of the service (the type keeps them from reaching past it). */
export type RoomToolHost = Pick<BotRooms, 'nameOf' | 'chainFrom' | 'group' | 'createGroup' | 'updateGroup' | 'deleteGroup' | 'post' | 'readChat'>

function describeGroup(rooms: Pick<RoomToolHost, 'nameOf'>, g: Group): string {
  const name = (id: string) => rooms.nameOf(id)
  return `${g.name} (id ${g.id}; members ${g.members.map(name).join(', ')}; admin ${g.admin ? name(g.admin) : 'none'}; ${g.mode} mode)`
}

type GroupAction = 'create' | 'update' | 'delete'
const GROUP_ACTIONS = { create: 'create_group', update: 'update_group', delete: 'delete_group' } as const

const READ_CHAT = {
  last: { type: 'integer', description: 'Default 30, at most 200.' },
  query: { type: 'string', description: 'Search all posts.' },
} as const

export function groupTools(rooms: RoomToolHost, offer: Offer): ToolDefinition[] {
  const tools: ToolDefinition[] = []
  const actions = (Object.keys(GROUP_ACTIONS) as GroupAction[]).filter((a) => offer.may(GROUP_ACTIONS[a]))
  if (actions.length)
    tools.push(
      defineTeamTool({
        name: 'manage_group',
        description:
          actions.length > 1
            ? 'Create, change or delete a group room, where members speak one at a time when called; the user joins it in DSH Web. Naming an admin, and deleting, only when the user asks.'
            : 'Change a group you admin; naming a new admin only when the user asks. Removed members stop speaking there.',
        parameters: {
          action: { type: 'string', enum: actions, required: true },
          group: { type: 'string', description: 'Name or id (update, delete).' },
          name: { type: 'string' },
          members: { type: 'array', items: { type: 'string' }, description: 'Bots in speaking order.' },
          admin: { type: 'string', description: 'A member, or "none".' },
          mode: { type: 'string', enum: ['admin', 'everyone'], description: 'Who answers a plain post.' },
          notice: { type: 'string', description: 'Shown to every speaker.' },
          ...(actions.includes('delete') ? { reason: { type: 'string', description: 'Why (delete).' } } : {}),
        },
        output: text,
        async execute(args, exec) {
          return answer(async () => {
            const { action, group, reason, ...fields } = args as typeof args & { reason?: string }
            if (action === 'create') {
              const g = await rooms.createGroup(requesterOf(exec), fields)
              return `Created group ${describeGroup(rooms, g)}. The user finds it in DSH Web as "${g.name}".`
            }
            if (!group) return `Refused: name the group to ${action} (group: its name or id).`
            if (action === 'delete') {
              const g = await rooms.deleteGroup(requesterOf(exec), group, reason ?? '')
              return `Deleted group ${g.name}; its Sessions are archived.`
            }
            const g = await rooms.updateGroup(requesterOf(exec), group, fields)
            return `Changed group ${describeGroup(rooms, g)}.`
          })
        },
      }),
    )
  if (offer.may('post_to_group'))
    tools.push(
      defineTeamTool({
        name: 'post_to_group',
        description: 'Post to a group; it starts a round (@Name calls that member). Members cannot see your chat. report: the replies come back to you.',
        parameters: { group: { type: 'string', required: true }, text: { type: 'string', required: true }, report: { type: 'boolean' } },
        output: text,
        async execute(args, exec) {
          return answer(async () => {
            const g = rooms.group(args.group)
            await rooms.post(requesterOf(exec), args.group, args.text, {
              report: args.report === true,
              ...(exec.agent ? { chain: rooms.chainFrom(String(exec.agent.id)) } : {}),
            })
            return `Posted to group ${g?.name ?? args.group}.${args.report ? ' The replies will be sent to you when the round ends.' : ''}`
          })
        },
      }),
    )
  if (offer.may('read_group_chat'))
    tools.push(
      defineTeamTool({
        name: 'read_group_chat',
        description: "Read a group's newest posts.",
        parameters: { group: { type: 'string', required: true }, ...READ_CHAT },
        output: text,
        isConcurrencySafe: () => true,
        async execute(args, exec) {
          return answer(() => rooms.readChat(requesterOf(exec), args.group, args.last ?? 30, args.query))
        },
      }),
    )
  return tools
}

/** Tools of a member's group Session: reading that group's chat. */
export function memberTools(rooms: Pick<RoomToolHost, 'readChat'>, groupId: string): ToolDefinition[] {
  return [
    defineTeamTool({
      name: 'read_group_chat',
      description: 'Read more posts of this group than your turn shows.',
      parameters: READ_CHAT,
      output: text,
      isConcurrencySafe: () => true,
      async execute(args, exec) {
        return answer(() => rooms.readChat(requesterOf(exec), groupId, args.last ?? 30, args.query))
      },
    }),
  ]
}
