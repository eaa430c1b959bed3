/**
 * The rooms' tools. `groupTools` go on every Bot's own chat (`create_group`, `update_group`,
 * `delete_group`, `post_to_group`, `read_group_chat`); `memberTools` go on a member's group Session
 * (only `read_group_chat`, pinned to that group — a member speaks by replying, not by tools).
 *
 * Every tool identifies its caller from the calling Session (`callerOf`, which resolves group
 * Sessions to their Bot), lets the rooms service ask the authority check, and answers in plain
 * text: refusals are answers ("Refused: …"), not thrown errors. Wording and argument shapes only:
 * the tools see `BotRooms`' narrow surface (`callerOf`, `chainFrom`, `nameOf`, the group actions),
 * never the roster behind it.
 */
import { requesterOf } from '../core/caller.ts'
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineTeamTool } from '../dsh/team-tool.ts'
import type { Group } from '../store/index.ts'
import { answer, textOutput } from '../core/refusal.ts'
import type { BotRooms } from './service.ts'

const text = textOutput

/** All the tools may use of the service (the type keeps them from reaching past it). */
export type RoomToolHost = Pick<BotRooms, 'nameOf' | 'chainFrom' | 'group' | 'createGroup' | 'updateGroup' | 'deleteGroup' | 'post' | 'readChat'>

function describeGroup(rooms: Pick<RoomToolHost, 'nameOf'>, g: Group): string {
  const name = (id: string) => rooms.nameOf(id)
  return `${g.name} (id ${g.id}; members ${g.members.map(name).join(', ')}; admin ${g.admin ? name(g.admin) : 'none'}; ${g.mode} mode)`
}

export function groupTools(rooms: RoomToolHost): ToolDefinition[] {
  return [
    defineTeamTool({
      name: 'create_group',
      description:
        'Create a group room: members speak in order, only when called. Main Bots only; naming an admin only when the user asks. The user reads and writes in the room in DSH Web.',
      parameters: {
        name: { type: 'string', required: true, description: 'Unique group name, at most 60 characters.' },
        members: { type: 'array', items: { type: 'string' }, required: true, description: 'Bot names or ids, 2 to 12; the order is the speaking order.' },
        admin: { type: 'string', description: 'The admin (one of the members), or "none". The admin moderates and answers plain messages.' },
        mode: {
          type: 'string',
          enum: ['admin', 'everyone'],
          description: 'admin (default): a plain message goes to the admin only. everyone: the admin, then the others in order.',
        },
        notice: { type: 'string', description: 'A notice every speaker sees, at most 2,000 characters.' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const g = await rooms.createGroup(requesterOf(exec), args)
          return `Created group ${describeGroup(rooms, g)}. The user finds it in DSH Web as "${g.name}".`
        })
      },
    }),
    defineTeamTool({
      name: 'update_group',
      description:
        "Change a group: name, members, admin, mode or notice. A Main Bot may change any group, an admin its own (an admin cannot leave the group without an admin or remove itself); a new admin only when the user asks. Removed members' group activity stops.",
      parameters: {
        group: { type: 'string', required: true, description: 'The group, by name or id.' },
        name: { type: 'string' },
        members: { type: 'array', items: { type: 'string' }, description: 'The full new member list (names or ids), in speaking order.' },
        admin: { type: 'string', description: 'A member, or "none".' },
        mode: { type: 'string', enum: ['admin', 'everyone'] },
        notice: { type: 'string' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const { group, ...patch } = args
          const g = await rooms.updateGroup(requesterOf(exec), group, patch)
          return `Changed group ${describeGroup(rooms, g)}.`
        })
      },
    }),
    defineTeamTool({
      name: 'delete_group',
      description:
        "Delete a group: its members' group activity stops and its Sessions are archived (not erased). Main Bots only, only when the user asks; refused while a round runs.",
      parameters: {
        group: { type: 'string', required: true, description: 'The group, by name or id.' },
        reason: { type: 'string', required: true, description: 'Why, in a sentence (recorded).' },
      },
      output: text,
      async execute(args, exec) {
        return answer(async () => {
          const g = await rooms.deleteGroup(requesterOf(exec), args.group, args.reason)
          return `Deleted group ${g.name}; its Sessions are archived.`
        })
      },
    }),
    defineTeamTool({
      name: 'post_to_group',
      description:
        "Post to a group room under your name; it starts a round (routed like a user message: @Name calls that member). Main Bots, or the group's admin. Returns at once; with report=true the replies come back to this chat when the round ends.",
      parameters: {
        group: { type: 'string', required: true, description: 'The group, by name or id.' },
        text: { type: 'string', required: true, description: 'The post (self-contained: members cannot see your chat).' },
        report: { type: 'boolean', description: "Send the round's replies back to you when it ends." },
      },
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
    defineTeamTool({
      name: 'read_group_chat',
      description: "Read a group's recent posts, or search its whole history with query. Members of the group and Main Bots.",
      parameters: {
        group: { type: 'string', required: true, description: 'The group, by name or id.' },
        last: { type: 'integer', description: 'How many of the newest posts (default 30, at most 200).' },
        query: { type: 'string', description: "Words to find anywhere in the room's history (quote a phrase for an exact match)." },
      },
      output: text,
      isConcurrencySafe: () => true,
      async execute(args, exec) {
        return answer(() => rooms.readChat(requesterOf(exec), args.group, args.last ?? 30, args.query))
      },
    }),
  ]
}

/** Tools of a member's group Session: reading that group's chat. */
export function memberTools(rooms: Pick<RoomToolHost, 'readChat'>, groupId: string): ToolDefinition[] {
  return [
    defineTeamTool({
      name: 'read_group_chat',
      description: 'Read older posts of this group than your turn showed, or search its whole history with query.',
      parameters: {
        last: { type: 'integer', description: 'How many of the newest posts (default 30, at most 200).' },
        query: { type: 'string', description: "Words to find anywhere in this room's history (quote a phrase for an exact match)." },
      },
      output: text,
      isConcurrencySafe: () => true,
      async execute(args, exec) {
        return answer(() => rooms.readChat(requesterOf(exec), groupId, args.last ?? 30, args.query))
      },
    }),
  ]
}
