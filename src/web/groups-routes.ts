/**
 * The groups API under `/bot-team/api/groups`, acting as the user (authority caller `user`):
 *   GET    /groups                    the live groups (members in speaking order, admin, mode, notice)
 *                                      and the field limits the dialog shows
 *   POST   /groups                    create a group          body: { name, members, admin?, mode?, notice? }
 *   GET    /groups/<id|name>          one group
 *   PATCH  /groups/<id|name>          change a group          body: the fields to change
 *   DELETE /groups/<id|name>          delete a group          body: { "reason": "…" }
 *
 * Making a Bot a group's admin raises its authority (an admin may change and post to its group
 * and write team memory, `roster/authority.ts`), so a body that names a new admin (`raises.ts`
 * `adminRaises`: on create, any admin; on change, a Bot other than the current admin) needs a
 * paired browser, asked of `pairing.requirePaired` before anything is validated or changed; every
 * other change (name, members, their order, mode, notice, no admin, delete) needs only the fence,
 * which the router applied already. Groups are looked up among live groups by id or name
 * (`botRooms.group`: a list of own values), so `constructor` or `__proto__` are unknown (404).
 *
 * Deliberately narrow: the rooms service validates every field (zod, `rooms/group-fields.ts`) and
 * asks the authority decision; its refusal comes back word for word (a 400 whose `field: message`
 * parts the dialog shows next to each field). This module only reads bounded bodies, resolves the
 * group, and asks for pairing. The room Session a new group opens, and the end of its members'
 * Sessions when it is deleted, are the service's.
 */
import type { IncomingMessage } from 'node:http'
import { GROUP_NAME_MAX, MEMBERS_MAX, MEMBERS_MIN, NOTICE_MAX } from '../rooms/group-fields.ts'
import type { BotRooms } from '../rooms/service.ts'
import type { BotRoster } from '../roster/service.ts'
import type { Group } from '../store/index.ts'
import { DeleteBody, MAX_BODY_BYTES, SMALL_BODY_BYTES } from './bots-routes.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'
import { adminRaises } from './raises.ts'

const USER = { kind: 'user' } as const

/** The service's own field limits (`group-fields.ts`), sent with the list so the dialog never keeps a copy. */
export const GROUP_LIMITS = Object.freeze({ nameMax: GROUP_NAME_MAX, noticeMax: NOTICE_MAX, membersMin: MEMBERS_MIN, membersMax: MEMBERS_MAX })

export interface GroupSummary {
  id: string
  name: string
  /** In speaking order. */
  members: { id: string; name: string }[]
  admin: { id: string; name: string } | null
  mode: Group['mode']
  notice: string
  roomSessionId?: string
  createdAt: string
}

/** What the API shows of a group (names beside ids, so a client needs no second call). */
export function groupSummary(group: Group, nameOf: (botId: string) => string): GroupSummary {
  const who = (id: string) => ({ id, name: nameOf(id) })
  return {
    id: group.id,
    name: group.name,
    members: group.members.map(who),
    admin: group.admin ? who(group.admin) : null,
    mode: group.mode,
    notice: group.notice,
    ...(group.roomSessionId ? { roomSessionId: group.roomSessionId } : {}),
    createdAt: group.createdAt,
  }
}

/** A live group by id or name; 404 otherwise. */
export function resolveGroup(rooms: BotRooms, ref: string): Group {
  const group = rooms.group(ref)
  if (!group) throw new HttpError(404, `No group named or with id "${ref}". GET /bot-team/api/groups lists the groups.`)
  return group
}

export interface GroupsRequest {
  method: string
  /** The decoded `<id|name>` segment, when the path has one. */
  ref?: string
  req: IncomingMessage
}

export async function groupsApi({ method, ref, req }: GroupsRequest, rooms: BotRooms, roster: BotRoster, pairing: Pairing): Promise<[number, unknown]> {
  const show = (g: Group) => groupSummary(g, (id) => rooms.nameOf(id))
  const botId = (r: string) => roster.find(r)?.id
  if (ref === undefined) {
    if (method === 'GET') return [200, { groups: rooms.groups().map(show), limits: GROUP_LIMITS }]
    if (method === 'POST') {
      const body = await readJsonBody(req, MAX_BODY_BYTES)
      if (adminRaises(undefined, body, botId)) await pairing.requirePaired(req)
      return [201, { group: show(await rooms.createGroup(USER, body)) }]
    }
    throw new HttpError(405, `${method} not allowed on /groups`)
  }
  const group = resolveGroup(rooms, ref)
  if (method === 'GET') return [200, { group: show(group) }]
  if (method === 'PATCH') {
    const body = await readJsonBody(req, MAX_BODY_BYTES)
    if (adminRaises(group.admin, body, botId)) await pairing.requirePaired(req)
    return [200, { group: show(await rooms.updateGroup(USER, group.id, body)) }]
  }
  if (method === 'DELETE') {
    const { reason } = parseBody(DeleteBody, await readJsonBody(req, SMALL_BODY_BYTES))
    return [200, { group: show(await rooms.deleteGroup(USER, group.id, reason)) }]
  }
  throw new HttpError(405, `${method} not allowed on /groups/${ref}`)
}
