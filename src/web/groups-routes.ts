/**
 * The groups API under `/bot-team/api/groups`, acting as the person: list, create, one, change,
 * delete. Bodies are read whole first; the rooms service decides inside its save whether a change
 * makes a Bot a group's admin (a raise an unpaired request is refused), and its refusals come back
 * word for word. Deliberately only bounded bodies and the lookup.
 */
import type { IncomingMessage } from 'node:http'
import { GROUP_NAME_MAX, MEMBERS_MAX, MEMBERS_MIN, NOTICE_MAX } from '../rooms/group-fields.ts'
import type { BotRooms } from '../rooms/service.ts'
import type { Group } from '../store/index.ts'
import { DeleteBody, MAX_BODY_BYTES, SMALL_BODY_BYTES } from './bots-routes.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'

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

export async function groupsApi({ method, ref, req }: GroupsRequest, rooms: BotRooms, pairing: Pairing): Promise<[number, unknown]> {
  const show = (g: Group) => groupSummary(g, (id) => rooms.nameOf(id))
  if (ref === undefined) {
    if (method === 'GET') return [200, { groups: rooms.groups().map(show), limits: GROUP_LIMITS }]
    if (method === 'POST') {
      const body = await readJsonBody(req, MAX_BODY_BYTES)
      return [201, { group: show(await rooms.createGroup(await pairing.person(req), body)) }]
    }
    throw new HttpError(405, `${method} not allowed on /groups`)
  }
  const group = resolveGroup(rooms, ref)
  if (method === 'GET') return [200, { group: show(group) }]
  if (method === 'PATCH') {
    const body = await readJsonBody(req, MAX_BODY_BYTES)
    return [200, { group: show(await rooms.updateGroup(await pairing.person(req), group.id, body)) }]
  }
  if (method === 'DELETE') {
    const { reason } = parseBody(DeleteBody, await readJsonBody(req, SMALL_BODY_BYTES))
    return [200, { group: show(await rooms.deleteGroup(await pairing.person(req), group.id, reason)) }]
  }
  throw new HttpError(405, `${method} not allowed on /groups/${ref}`)
}
