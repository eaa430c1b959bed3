// botRooms: what a member reads — "since it last looked" across a restart (cursors saved in team
// state), the bounded window and read_group_chat from a member Session, the notice and place in
// the turn, the poster not answering its own post, and the announcement hook.
import { describe, expect, it } from 'vitest'
import {
  lastToolResults,
  offersTool,
  userTextsSinceLastAssistant,
  type RecordedRequest,
  type Rule,
  type ScriptMap,
} from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import type { RoomLimits } from '../../../src/core/limits.ts'
import { bots, roomLog, roomOf, say, settle, speakers, team, user } from './helpers.ts'
import { from } from '../delivery/helpers.ts'

const track = disposedAfterEach()
const start = async (scripts: Record<string, Rule>, limits?: Partial<RoomLimits>) => track(await team(scripts, limits ? { limits } : {}))
const turnOf = (req: RecordedRequest) => userTextsSinceLastAssistant(req).join('\n')
const requestsOf = (host: DshHost, model: string) => host.adapter.model.loopRequests().filter((r) => r.model === model)

describe('"since it last looked" survives a restart', () => {
  it('a member who was not called before the restart is shown what it missed; one who was is shown only the new posts', async () => {
    const script: ScriptMap = { mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada answers' } }, bob: { fallback: { text: 'Bob answers' } } }
    const mount = async (home?: string) => track(await startTeamHost(script, home ? { home } : {}))
    const first = await mount()
    const ids = await bots(first, ['Ada', 'Bob'])
    const g = await first.ctx.botRooms.createGroup(user, { name: 'Keep', members: ['Ada', 'Bob'], admin: 'Ada' })
    await say(first, 'Keep', 'first question PLANT-1')
    await say(first, 'Keep', 'second question PLANT-2')
    expect(speakers(first, ['Ada', 'Bob'])).toEqual(['Ada', 'Ada'])
    // Saved in team state: Ada looked before the 3rd post (then posted the 4th); Bob never looked.
    expect(first.ctx.botStore.state.groups[g.id]!.seen).toEqual({ [ids.Ada!]: 3, [ids.Bob!]: 0 })
    await first.ctx.fiber.dispose()

    const second = await mount(first.home)
    await second.ctx.botRooms.roomAgent(g.id)
    await say(second, 'Keep', '@Bob catch up')
    const bob = requestsOf(second, 'bob')
    expect(bob).toHaveLength(1)
    expect(turnOf(bob[0]!)).toContain('User: first question PLANT-1')
    expect(turnOf(bob[0]!)).toContain('Ada: Ada answers')
    expect(turnOf(bob[0]!)).toContain('User: second question PLANT-2')
    expect(turnOf(bob[0]!)).toContain('User: @Bob catch up')

    await say(second, 'Keep', '@Ada your turn')
    const ada = requestsOf(second, 'ada')
    expect(ada).toHaveLength(1)
    // Ada's own group Session holds the earlier exchange; its turn carries only what is new.
    expect(turnOf(ada[0]!)).not.toMatch(/PLANT-1|PLANT-2/)
    expect(turnOf(ada[0]!)).toContain('User: @Bob catch up')
    expect(turnOf(ada[0]!)).toContain('Bob: Bob answers')
    expect(turnOf(ada[0]!)).toContain('User: @Ada your turn')
  })
})

describe('window and read_group_chat', () => {
  it('a turn shows only the newest posts (bounded); the member reads older ones with read_group_chat from its group Session', async () => {
    const host = await start(
      {
        ada: { text: 'Ada answers' },
        bob: (req) => {
          const results = lastToolResults(req)
          if (results.length) return { text: `I read: ${results[0]!.text.replace(/\n/g, ' | ')}` }
          return offersTool(req, 'read_group_chat') && /READBACK/.test(turnOf(req))
            ? { toolCalls: [{ name: 'read_group_chat', args: { last: 10 } }] }
            : { text: 'Bob answers' }
        },
      },
      { windowPosts: 1 },
    )
    await bots(host, ['Ada', 'Bob'])
    await host.ctx.botRooms.createGroup(user, { name: 'Win', members: ['Ada', 'Bob'], admin: 'Ada' })
    await say(host, 'Win', 'OLDPOST-1')
    await say(host, 'Win', '@Bob READBACK what did I say first?')
    const bob = requestsOf(host, 'bob')
    expect(bob).toHaveLength(2)
    expect(turnOf(bob[0]!)).not.toContain('OLDPOST-1')
    expect(turnOf(bob[0]!)).toContain('(2 earlier posts not shown; read_group_chat shows more)')
    expect(turnOf(bob[0]!)).toContain('User: @Bob READBACK')
    expect(lastToolResults(bob[1]!)[0]!.text).toMatch(/^Group Win, 3 of 3 post\(s\):\nUser: OLDPOST-1\nAda: Ada answers\nUser: @Bob READBACK/)
    expect(roomLog(host, 'Win')).toContain('**Bob:** I read: Group Win, 3 of 3 post(s): | User: OLDPOST-1')
  })
})

describe('what a turn carries, and who answers', () => {
  it('the turn carries the notice and the place; the poster never answers its own post', async () => {
    const host = await start({ ada: { text: 'Ada here' }, bob: { text: 'Bob here' }, cy: { text: 'Cy here' } })
    const ids = await bots(host, ['Ada', 'Bob', 'Cy'])
    await host.ctx.botRooms.createGroup(user, { name: 'Own', members: ['Ada', 'Bob', 'Cy'], admin: 'Ada', notice: 'NOTICE-4410: ship on Friday' })
    const asAda = from(host, ids.Ada!)
    await host.ctx.botRooms.post(asAda, 'Own', '@all status please')
    await settle(host, 'Own')
    await host.ctx.botRooms.post(asAda, 'Own', '@Ada @Cy just Cy then')
    await settle(host, 'Own')
    await host.ctx.botRooms.post(asAda, 'Own', 'an announcement for everyone')
    await settle(host, 'Own')
    expect(speakers(host, ['Ada', 'Bob', 'Cy'])).toEqual(['Bob', 'Cy', 'Cy'])
    expect(host.ctx.botRooms.rounds().map((r) => r.turns.length)).toEqual([2, 1, 0])
    const bob = requestsOf(host, 'bob')[0]!
    expect(turnOf(bob)).toContain('Notice: NOTICE-4410: ship on Friday')
    expect(turnOf(bob)).toContain('you speak 1 of 2')
    expect(turnOf(bob)).toContain('Ada: @all status please')
    expect(turnOf(requestsOf(host, 'cy')[0]!)).toContain('you speak 2 of 2, after Bob')
    expect(roomLog(host, 'Own')).toMatch(/\*\*Ada:\*\* @all status please\s+\*\*Bob:\*\* Bob here\s+\*\*Cy:\*\* Cy here/)
    expect(roomLog(host, 'Own')).toContain('**Ada:** an announcement for everyone')
  })

  it('the announcement hook shows a one-line notice in the room, starts no round and is not a post', async () => {
    const host = await start({ ada: { text: 'Ada here' }, bob: { text: 'Bob here' } })
    await bots(host, ['Ada', 'Bob'])
    const g = await host.ctx.botRooms.createGroup(user, { name: 'Ann', members: ['Ada', 'Bob'], mode: 'everyone' })
    await host.ctx.botRooms.announce(g.id, 'Ada read its own chat\non purpose (archive_1)')
    await settle(host, 'Ann')
    expect(roomLog(host, 'Ann')).toContain('_Ada read its own chat on purpose (archive\\_1)_')
    expect(speakers(host, ['Ada', 'Bob'])).toEqual([])
    expect(host.ctx.botRooms.rounds()).toEqual([])
    expect(await host.ctx.botRooms.readChat(user, 'Ann')).toBe('Group Ann has no posts yet.')
    // The room goes on normally afterwards; the notice is not shown to members as a post.
    await say(host, 'Ann', 'hello')
    expect(speakers(host, ['Ada', 'Bob'])).toEqual(['Ada', 'Bob'])
    expect(turnOf(requestsOf(host, 'ada')[0]!)).not.toContain('read its own chat')
    expect(roomOf(host, 'Ann').status).toBe('idle')
  })
})
