// botRooms: the storm (limits in code bound every round and the total number of model requests),
// authority through the tools, delete/remove = stop activity, report back, restart.
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { lastToolResults, type Rule } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt, startTeamHost } from '../../support/dsh-host.ts'
import { bots, roomLog, roomOf, say, settle, speakers, team, user } from './helpers.ts'
import { from } from '../delivery/helpers.ts'

const track = disposedAfterEach()
const start = async (scripts: Record<string, Rule>) => track(await team(scripts))
const toolText = (agent: { session: { events: readonly { type: string; data: unknown }[] } }) =>
  agent.session.events.filter((e) => e.type === 'tool/result').map((e: any) => e.data.message.content[0].content[0].text as string)

describe('storm', () => {
  it('every member always answers @all with a post and Bots keep starting rounds: every round and the total stay bounded', async () => {
    const NAMES = ['Ada', 'Bob', 'Cy', 'Dee']
    const storm: Rule = () => ({ text: '@all @Ada @Bob @Cy @Dee storm post, everyone answer!' })
    const scripts: Record<string, Rule> = Object.fromEntries(NAMES.map((n) => [n.toLowerCase(), storm]))
    // The Main Bot keeps starting rounds until the room refuses it.
    scripts.mock = (req) => {
      const last = lastToolResults(req)[0]?.text
      return last?.startsWith('Refused')
        ? { text: 'the room refused; stopping' }
        : { toolCalls: [{ name: 'post_to_group', args: { group: 'Storm', text: '@all keep going' } }] }
    }
    const host = await start(scripts)
    await bots(host, NAMES)
    await host.ctx.botRooms.createGroup(user, { name: 'Storm', members: NAMES, admin: 'Ada', mode: 'everyone' })
    await say(host, 'Storm', '@all kick off')
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    const mainAgent = await host.ctx.botRoster.agentOf(main.id)
    await prompt(host, mainAgent, 'start rounds in Storm')
    await settle(host, 'Storm')

    const limits = host.ctx.botRooms.limits
    const perRound = NAMES.length + limits.extraTurns
    const rounds = host.ctx.botRooms.rounds()
    // 1 user round + the Bot-started rounds the limit allows; the next post was refused.
    expect(rounds.length).toBe(1 + limits.botRoundsPerUserMessage)
    expect(toolText(mainAgent).filter((t) => t.startsWith('Refused: Bots have started 3 rounds'))).toHaveLength(1)
    for (const r of rounds) {
      expect(r.turns.length).toBeLessThanOrEqual(perRound)
      for (const id of new Set(r.turns.map((t) => t.botId))) {
        expect(r.turns.filter((t) => t.botId === id).length).toBeLessThanOrEqual(
          id === host.ctx.botRoster.find('Ada')!.id ? limits.callsPerAdmin : limits.callsPerMember,
        )
      }
    }
    const memberRequests = speakers(host, NAMES).length
    const bound = (1 + limits.botRoundsPerUserMessage) * perRound // one model request per member turn (text replies)
    expect(memberRequests).toBeLessThanOrEqual(bound)
    expect(memberRequests).toBe(rounds.reduce((n, r) => n + r.turns.length, 0))
    console.log(
      `storm: ${rounds.length} rounds, turns per round ${rounds.map((r) => r.turns.length).join('/')} (cap ${perRound}), member requests ${memberRequests} ≤ ${bound}`,
    )
    expect(roomLog(host, 'Storm')).toContain(`This round reached its limit of ${perRound} turns`)
    // The user speaks again: Bots may start rounds again.
    await say(host, 'Storm', 'ok, enough')
    await expect(host.ctx.botRooms.post(from(host, main.id), 'Storm', 'one more')).resolves.toMatch(/^post-/)
  })
})

describe('authority', () => {
  it('a member cannot update another group; an admin may change its own but not leave it adminless or remove itself', async () => {
    const host = await start({
      ada: (req) =>
        lastToolResults(req).length
          ? { text: 'done' }
          : { toolCalls: [{ name: 'manage_group', args: { action: 'update', group: 'Other', notice: 'hijacked' } }] },
    })
    const ids = await bots(host, ['Ada', 'Bob', 'Cy'])
    await host.ctx.botRooms.createGroup(user, { name: 'Mine', members: ['Ada', 'Bob'], admin: 'Ada' })
    await host.ctx.botRooms.createGroup(user, { name: 'Other', members: ['Bob', 'Cy'], admin: 'Bob' })
    // Ada's admin role takes effect from her next part (the offered tools are frozen with a part).
    await host.ctx.botRoster.openOwnChat(ids.Ada!)
    const ada = await host.ctx.botRoster.agentOf(ids.Ada!)
    await prompt(host, ada, 'change the other group')
    expect(toolText(ada).at(-1)).toMatch(/^Refused: Only a Main Bot or this group's admin may change the group/)
    expect(host.ctx.botRooms.group('Other')!.notice).toBe('')

    const asAda = from(host, ids.Ada!)
    await expect(host.ctx.botRooms.updateGroup(asAda, 'Mine', { notice: 'ship Friday' })).resolves.toMatchObject({ notice: 'ship Friday' })
    await expect(host.ctx.botRooms.updateGroup(asAda, 'Mine', { admin: 'none' })).rejects.toThrow(/without an admin/)
    await expect(host.ctx.botRooms.updateGroup(asAda, 'Mine', { members: ['Bob', 'Cy'] })).rejects.toThrow(/cannot remove yourself/)
    await expect(host.ctx.botRooms.createGroup(asAda, { name: 'Mine2', members: ['Ada', 'Bob'] })).rejects.toThrow(/Only a Main Bot may create groups/)
    await expect(host.ctx.botRooms.post(asAda, 'Other', 'hi')).rejects.toThrow(/Only a Main Bot or this group's admin may post/)
    await expect(host.ctx.botRooms.readChat(from(host, ids.Ada!), 'Other')).rejects.toThrow(/not a member/)
    await expect(host.ctx.botRooms.deleteGroup(asAda, 'Mine', 'x')).rejects.toThrow(/Only a Main Bot may delete groups/)
    // Bad input is refused with a reason, changing nothing.
    await expect(host.ctx.botRooms.createGroup(user, { name: 'mine', members: ['Ada', 'Bob'] })).rejects.toThrow(/already exists/)
    await expect(host.ctx.botRooms.createGroup(user, { name: 'Solo', members: ['Ada'] })).rejects.toThrow(/at least 2/)
    await expect(host.ctx.botRooms.createGroup(user, { name: 'Bad', members: ['Ada', 'Bob'], admin: 'Cy' })).rejects.toThrow(/admin must be one of the members/)
    await expect(host.ctx.botRooms.createGroup(user, { name: 'N', members: ['Ada', 'Bob'], notice: 'x'.repeat(2001) })).rejects.toThrow(/2000/)
  })
})

describe('stopping activity', () => {
  it("delete_group is refused while a round runs; deleting ends the members' group activity", async () => {
    const host = await start({ ada: { text: 'slow answer', delayMs: 400 }, bob: { text: 'Bob' } })
    const ids = await bots(host, ['Ada', 'Bob'])
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    const asMain = from(host, main.id)
    await host.ctx.botRooms.createGroup(user, { name: 'Busy', members: ['Ada', 'Bob'], mode: 'everyone' })
    const room = roomOf(host, 'Busy')
    const { createUserMessage } = await import('@deepseek-ai/dsh-llm')
    room.followup(createUserMessage({ content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } }))
    while (!host.ctx.botRooms.roundRunning(host.ctx.botRooms.group('Busy')!.id)) await new Promise((r) => setTimeout(r, 5))
    await expect(host.ctx.botRooms.deleteGroup(asMain, 'Busy', 'cleanup')).rejects.toThrow(/A round is running/)
    await room.whenIdle()
    const sessions = { ...host.ctx.botRooms.group('Busy')!.memberSessions }
    expect(Object.keys(sessions).sort()).toEqual([ids.Ada, ids.Bob].sort())
    await host.ctx.botRooms.deleteGroup(asMain, 'Busy', 'cleanup')
    for (const sid of Object.values(sessions)) expect(host.ctx.agents.get(SessionId(sid))).toBeUndefined()
    expect(host.ctx.botRooms.group('Busy')).toBeUndefined()
    await expect(host.ctx.botRooms.post(asMain, 'Busy', 'hello?')).rejects.toThrow(/No group named/)
  })

  it('removing a member cancels its running group turn', async () => {
    const host = await start({ ada: { text: 'never finishes', delayMs: 5_000 }, bob: { text: 'Bob' }, cy: { text: 'Cy' } })
    const ids = await bots(host, ['Ada', 'Bob', 'Cy'])
    await host.ctx.botRooms.createGroup(user, { name: 'R', members: ['Ada', 'Bob', 'Cy'], admin: 'Bob' })
    const room = roomOf(host, 'R')
    const { createUserMessage } = await import('@deepseek-ai/dsh-llm')
    room.followup(createUserMessage({ content: [{ type: 'text', text: '@Ada go' }], source: { kind: 'user' } }))
    while (!host.ctx.botRooms.group('R')!.memberSessions[ids.Ada!]) await new Promise((r) => setTimeout(r, 5))
    await host.ctx.botRooms.updateGroup(user, 'R', { members: ['Bob', 'Cy'] })
    await room.whenIdle()
    expect(
      host.ctx.botRooms
        .rounds()
        .at(-1)!
        .turns.map((t) => t.outcome),
    ).toEqual(['stopped'])
    expect(roomLog(host, 'R')).toContain("_Ada's turn was stopped._")
  })
  it('deleting a Bot that is a group member cancels its running group turn and closes its member Session (one opener, one close)', async () => {
    const host = await start({ ada: { text: 'never finishes', delayMs: 5_000 }, bob: { text: 'Bob' } })
    const ids = await bots(host, ['Ada', 'Bob'])
    await host.ctx.botRooms.createGroup(user, { name: 'R', members: ['Ada', 'Bob'], admin: 'Bob' })
    const room = roomOf(host, 'R')
    const { createUserMessage } = await import('@deepseek-ai/dsh-llm')
    room.followup(createUserMessage({ content: [{ type: 'text', text: '@Ada go' }], source: { kind: 'user' } }))
    while (!host.ctx.botRooms.group('R')!.memberSessions[ids.Ada!]) await new Promise((r) => setTimeout(r, 5))
    const memberSid = host.ctx.botRooms.group('R')!.memberSessions[ids.Ada!]!
    const member = host.ctx.agents.get(SessionId(memberSid))!
    while (member.status !== 'running') await new Promise((r) => setTimeout(r, 5))
    await host.ctx.botRoster.delete(user, 'Ada', 'no longer needed')
    await room.whenIdle()
    expect(host.ctx.agents.get(SessionId(memberSid))).toBeUndefined()
    expect(member.session.events.filter((e) => e.type === 'turn/end').map((e: any) => e.data.reason.kind)).toEqual(['aborted'])
    expect(
      host.ctx.botRooms
        .rounds()
        .at(-1)!
        .turns.map((t) => t.outcome),
    ).toEqual(['stopped'])
  })
})

describe('posting', () => {
  it("post_to_group by the admin runs a round; report=true sends the replies back to the poster's own chat", async () => {
    let adaOwn = 0
    const host = await start({
      ada: (req) => {
        if (req.system.includes('You are speaking in the group')) return { text: '[PASS]' }
        adaOwn++
        return lastToolResults(req).length || adaOwn > 1
          ? { text: 'ok' }
          : { toolCalls: [{ name: 'post_to_group', args: { group: 'Team', text: '@Bob please review PR 12', report: true } }] }
      },
      bob: { text: 'Reviewed PR 12: looks good' },
    })
    const ids = await bots(host, ['Ada', 'Bob'])
    await host.ctx.botRooms.createGroup(user, { name: 'Team', members: ['Ada', 'Bob'], admin: 'Ada' })
    await host.ctx.botRoster.openOwnChat(ids.Ada!) // her admin role (and post_to_group) from her next part
    const ada = await host.ctx.botRoster.agentOf(ids.Ada!)
    await prompt(host, ada, 'ask Bob for a review in the group')
    await settle(host, 'Team')
    await ada.whenIdle()
    expect(roomLog(host, 'Team')).toMatch(/\*\*Ada:\*\* @Bob please review PR 12\s+\*\*Bob:\*\* Reviewed PR 12: looks good/)
    const reported = ada.session.events.filter((e) => e.type === 'user/message').map((e: any) => JSON.stringify(e.data))
    expect(reported.some((t) => t.includes('replies to your post') && t.includes('Reviewed PR 12'))).toBe(true)
    expect(host.ctx.botRooms.rounds().at(-1)).toMatchObject({ startedBy: ids.Ada, first: [ids.Bob] })
  })
})

describe('restart', () => {
  it('the room, its member Sessions and its transcript come back on the same home', async () => {
    const script = { mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada remembers' } }, bob: { fallback: { text: 'Bob too' } } }
    const first = track(await startTeamHost(script))
    await bots(first, ['Ada', 'Bob'])
    await first.ctx.botRooms.createGroup(user, { name: 'Keep', members: ['Ada', 'Bob'], admin: 'Ada' })
    await say(first, 'Keep', 'before the restart')
    const group = first.ctx.botRooms.group('Keep')!
    await first.ctx.fiber.dispose()

    const second = track(await startTeamHost(script, { home: first.home }))
    const main = second.ctx.botRoster.bots().find((b) => b.main)!
    await second.ctx.botRooms.post(from(second, main.id), 'Keep', 'after the restart')
    await settle(second, 'Keep')
    expect(String(roomOf(second, 'Keep').id)).toBe(group.roomSessionId)
    const adaReqs = second.adapter.model.loopRequests().filter((r) => r.model === 'ada')
    expect(adaReqs).toHaveLength(1)
    expect(adaReqs[0]!.sessionId).toBe(group.memberSessions[second.ctx.botRoster.find('Ada')!.id])
    // Its own group Session still holds the earlier exchange; the turn carries only the new post.
    expect(adaReqs[0]!.messages.some((m) => m.text.includes('before the restart'))).toBe(true)
    const chat = await second.ctx.botRooms.readChat(user, 'Keep')
    expect(chat).toContain('User: before the restart')
    expect(chat).toContain('Ada: Ada remembers')
    expect(chat).toContain('Main: after the restart')
    expect(second.adapter.model.requests.filter((r) => r.model === 'mock' && r.sessionId === group.roomSessionId)).toEqual([])
  })
})
