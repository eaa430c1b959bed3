// The authority matrix at the rooms service: every caller × group action × (round running or not),
// with the group facts the service fills in (admin, member, round), against an independent table.
import { expect, it } from 'vitest'
import type { Caller } from '../../../src/core/authority.ts'
import type { GroupAction } from '../../../src/rooms/service.ts'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { bots, roomOf, team, user } from './helpers.ts'

const track = disposedAfterEach()

type Who = 'user' | 'main' | 'admin' | 'member' | 'outsider' | 'admin-elsewhere' | 'plain-session'
const ACTIONS: GroupAction[] = ['create_group', 'update_group', 'delete_group', 'post_to_group', 'read_group_chat']
// Expected outcome (true = allowed); `round` only matters for delete_group.
const EXPECT: Record<Who, Record<GroupAction, boolean>> = {
  user: { create_group: true, update_group: true, delete_group: true, post_to_group: true, read_group_chat: true },
  main: { create_group: true, update_group: true, delete_group: true, post_to_group: true, read_group_chat: true },
  admin: { create_group: false, update_group: true, delete_group: false, post_to_group: true, read_group_chat: true },
  member: { create_group: false, update_group: false, delete_group: false, post_to_group: false, read_group_chat: true },
  outsider: { create_group: false, update_group: false, delete_group: false, post_to_group: false, read_group_chat: false },
  'admin-elsewhere': { create_group: false, update_group: false, delete_group: false, post_to_group: false, read_group_chat: false },
  'plain-session': { create_group: false, update_group: false, delete_group: false, post_to_group: false, read_group_chat: false },
}

it('caller × group action × round running (a real round: a slow member is speaking)', async () => {
  const host = track(await team({ ada: { text: 'slow answer', delayMs: 30_000 } }, { limits: { turnTimeoutMs: 60_000 } }))
  const ids = await bots(host, ['Ada', 'Bob', 'Cy', 'Dee'])
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada' })
  await host.ctx.botRooms.createGroup(user, { name: 'H', members: ['Dee', 'Cy'], admin: 'Dee' })
  const callers: Record<Who, Caller> = {
    user,
    main: { kind: 'main-bot', botId: main.id },
    admin: { kind: 'bot', botId: ids.Ada },
    member: { kind: 'bot', botId: ids.Bob },
    outsider: { kind: 'bot', botId: ids.Cy },
    'admin-elsewhere': { kind: 'bot', botId: ids.Dee },
    'plain-session': host.ctx.botRoster.callerOf('session-not-a-bot'),
  }
  const g = host.ctx.botRooms.group('G')!
  const got: Record<string, boolean> = {}
  const want: Record<string, boolean> = {}
  const room = roomOf(host, 'G')
  for (const round of [false, true]) {
    if (round) {
      room.followup(createUserMessage({ content: [{ type: 'text', text: '@Ada go' }], source: { kind: 'user' } }))
      while (!host.ctx.botRooms.roundRunning(g.id)) await new Promise((r) => setTimeout(r, 5))
    }
    for (const [who, caller] of Object.entries(callers) as [Who, Caller][]) {
      for (const action of ACTIONS) {
        const key = `${who} ${action}${round ? ' (round running)' : ''}`
        got[key] = host.ctx.botRooms.decision(caller, action, action === 'create_group' ? undefined : g).allowed
        want[key] = EXPECT[who][action] && !(round && action === 'delete_group')
      }
    }
  }
  expect(got).toEqual(want)
  // Stopping the room's turn ends the round; the member's turn is recorded as stopped.
  room.cancel({ kind: 'user' })
  await room.whenIdle()
  expect(host.ctx.botRooms.roundRunning(g.id)).toBe(false)
})
