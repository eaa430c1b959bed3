// botRooms on the real DSH core, in-process, with one scripted model per Bot: routing, isolation,
// ordering, [PASS], missed and failed members, the zero-provider-call room.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { userTextsSinceLastAssistant, type RecordedRequest, type Rule } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt } from '../../support/dsh-host.ts'
import type { RoomLimits } from '../../../src/core/limits.ts'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { bots, roomLog, roomOf, say, speakers, team, user } from './helpers.ts'

const track = disposedAfterEach()
const start = async (scripts: Record<string, Rule>, limits?: Partial<RoomLimits>) => track(await team(scripts, limits ? { limits } : {}))

const turnOf = (req: RecordedRequest) => userTextsSinceLastAssistant(req).join('\n')
/** A member that says hello, or @all when the post it answers asks for it. */
const polite =
  (name: string): Rule =>
  (req) => ({ text: /ALLCALL/.test(turnOf(req)) && !/ALLDONE/.test(turnOf(req)) ? `@all ${name} calls everyone ALLDONE` : `${name} says hello` })
const NAMES = ['Ada', 'Bob', 'Cy']

describe('routing matrix (real DSH, expected speakers in order)', () => {
  type Case = [label: string, text: string, expected: Record<'admin+admin' | 'everyone+admin' | 'admin+none' | 'everyone+none', string[]>]
  const cases: Case[] = [
    [
      'plain',
      'hello there',
      { 'admin+admin': ['Bob'], 'everyone+admin': ['Bob', 'Ada', 'Cy'], 'admin+none': ['Ada', 'Bob', 'Cy'], 'everyone+none': ['Ada', 'Bob', 'Cy'] },
    ],
    ['@one', '@Cy what do you think', { 'admin+admin': ['Cy'], 'everyone+admin': ['Cy'], 'admin+none': ['Cy'], 'everyone+none': ['Cy'] }],
    [
      '@two',
      '@cy and @ADA please',
      { 'admin+admin': ['Cy', 'Ada'], 'everyone+admin': ['Cy', 'Ada'], 'admin+none': ['Cy', 'Ada'], 'everyone+none': ['Cy', 'Ada'] },
    ],
    [
      '@all by the user',
      '@all status?',
      {
        'admin+admin': ['Bob', 'Ada', 'Cy'],
        'everyone+admin': ['Bob', 'Ada', 'Cy'],
        'admin+none': ['Ada', 'Bob', 'Cy'],
        'everyone+none': ['Ada', 'Bob', 'Cy'],
      },
    ],
    // The admin (Bob) answers "@all" → every other member is added; without an admin nobody may @all.
    [
      '@all by the admin',
      'ALLCALL round',
      {
        'admin+admin': ['Bob', 'Ada', 'Cy'],
        'everyone+admin': ['Bob', 'Ada', 'Cy'],
        'admin+none': ['Ada', 'Bob', 'Cy'],
        'everyone+none': ['Ada', 'Bob', 'Cy'],
      },
    ],
    // A member (Ada) answers "@all" → ignored.
    ['@all by a member', '@Ada ALLCALL please', { 'admin+admin': ['Ada'], 'everyone+admin': ['Ada'], 'admin+none': ['Ada'], 'everyone+none': ['Ada'] }],
  ]
  it('mode × message × admin present/none', async () => {
    const host = await start(Object.fromEntries(NAMES.map((n) => [n.toLowerCase(), polite(n)])))
    await bots(host, NAMES)
    const groups = {
      'admin+admin': { mode: 'admin', admin: 'Bob' },
      'everyone+admin': { mode: 'everyone', admin: 'Bob' },
      'admin+none': { mode: 'admin', admin: 'none' },
      'everyone+none': { mode: 'everyone' },
    } as const
    for (const [key, g] of Object.entries(groups)) await host.ctx.botRooms.createGroup(user, { name: key, members: NAMES, ...g })
    const got: Record<string, string[]> = {}
    const want: Record<string, string[]> = {}
    for (const [label, text, expected] of cases) {
      for (const key of Object.keys(groups) as (keyof typeof groups)[]) {
        const before = speakers(host, NAMES).length
        await say(host, key, text)
        got[`${label} | ${key}`] = speakers(host, NAMES).slice(before)
        want[`${label} | ${key}`] = expected[key]
      }
    }
    expect(got).toEqual(want)
    // The rooms never reached a provider: every loop request was a member's.
    expect(host.adapter.model.requests.filter((r) => r.model === 'mock')).toEqual([])
    expect(host.ctx.botRooms.answered).toBeGreaterThanOrEqual(24)
  })
})

describe('member Sessions', () => {
  it("are created on first use, one per member per group, with the Bot identity and only the room's tool, read_group_chat", async () => {
    const host = await start({ ada: { text: 'Ada here' }, bob: { text: 'Bob here' } })
    const ids = await bots(host, ['Ada', 'Bob'])
    const g = await host.ctx.botRooms.createGroup(user, { name: 'Dev', members: ['Ada', 'Bob'], admin: 'Ada' })
    expect(g.memberSessions).toEqual({})
    await say(host, 'Dev', 'first')
    await say(host, 'Dev', 'second')
    const sessions = host.ctx.botRooms.group('Dev')!.memberSessions
    expect(Object.keys(sessions)).toEqual([ids.Ada])
    expect(host.ctx.botRoster.ownerOf(sessions[ids.Ada!]!)).toEqual({ kind: 'member', botId: ids.Ada, groupId: g.id })
    const reqs = host.adapter.model.loopRequests().filter((r) => r.model === 'ada')
    expect(new Set(reqs.map((r) => r.sessionId))).toEqual(new Set([sessions[ids.Ada!]]))
    expect(reqs[0]!.system).toContain('You are Ada')
    expect(reqs[0]!.system).toContain('You are speaking in the group "Dev"')
    expect(reqs[0]!.toolNames).toEqual(['read_group_chat'])
    // the identity there is the roster's, once, and promises none of the own chat's team tools
    expect(reqs[0]!.system.split('You are Ada').length).toBe(2)
    expect(reqs[0]!.system).not.toMatch(/create, change and delete Bots|interrupt or stop/)
    // The second turn carries only what is new since Ada last looked.
    expect(turnOf(reqs[1]!)).toContain('User: second')
    expect(turnOf(reqs[1]!)).not.toContain('User: first')
    // Bots' own chats got the group tools.
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'hi')
    const mainReq = host.adapter.model
      .loopRequests()
      .filter((r) => r.model === 'mock')
      .at(-1)!
    expect(mainReq.toolNames).toEqual(expect.arrayContaining(['manage_group', 'post_to_group', 'read_group_chat', 'list_bots']))
  })

  it("isolation: nothing of a member's private chat reaches its group request or the room log", async () => {
    const host = await start({ ada: (req) => ({ text: /PRIVATE-7731/.test(turnOf(req)) ? 'noted privately' : 'Ada in the room' }) })
    const ids = await bots(host, ['Ada', 'Bob'])
    await prompt(host, await host.ctx.botRoster.agentOf(ids.Ada!), 'Remember PRIVATE-7731, it is secret')
    await host.ctx.botRooms.createGroup(user, { name: 'Dev', members: ['Ada', 'Bob'], admin: 'Ada' })
    await say(host, 'Dev', 'what is new?')
    const groupReq = host.adapter.model
      .loopRequests()
      .filter((r) => r.model === 'ada')
      .at(-1)!
    expect(groupReq.sessionId).toBe(host.ctx.botRooms.group('Dev')!.memberSessions[ids.Ada!])
    expect(JSON.stringify(groupReq)).not.toContain('PRIVATE-7731')
    expect(JSON.stringify(groupReq)).not.toContain('noted privately')
    expect(roomLog(host, 'Dev')).toContain('Ada in the room')
    expect(roomLog(host, 'Dev')).not.toMatch(/PRIVATE-7731|noted privately/)
  })

  it('ordering: in everyone mode member k sees the replies of the members before it in the round', async () => {
    const host = await start(Object.fromEntries(NAMES.map((n) => [n.toLowerCase(), { text: `reply-of-${n}` }])))
    await bots(host, NAMES)
    await host.ctx.botRooms.createGroup(user, { name: 'All', members: NAMES, admin: 'Ada', mode: 'everyone' })
    await say(host, 'All', 'go round')
    const req = (m: string) => turnOf(host.adapter.model.loopRequests().find((r) => r.model === m)!)
    expect(req('ada')).toContain('User: go round')
    expect(req('bob')).toContain('Ada: reply-of-Ada')
    expect(req('bob')).toContain('you speak 2 of 3, after Ada')
    expect(req('cy')).toContain('Ada: reply-of-Ada')
    expect(req('cy')).toContain('Bob: reply-of-Bob')
    expect(roomLog(host, 'All')).toMatch(/\*\*Ada:\*\* reply-of-Ada\s+\*\*Bob:\*\* reply-of-Bob\s+\*\*Cy:\*\* reply-of-Cy/)
  })

  it("a member's turn is in its Session log on disk when the round records it (DSH batches its writes)", async () => {
    const host = await start({ ada: { text: 'Ada-on-disk' }, bob: { text: '[PASS]' } })
    const ids = await bots(host, ['Ada', 'Bob'])
    await host.ctx.botRooms.createGroup(user, { name: 'Disk', members: ['Ada', 'Bob'], mode: 'everyone' })
    // Read at the moment the round records Ada's turn (the progress event comes just before the post log's record).
    const seen: string[] = []
    host.ctx.on('bot-team/room-progress', (p) => {
      if (!p.posted.includes('Ada')) return
      const sid = host.ctx.botRooms.group('Disk')!.memberSessions[ids.Ada!]!
      const root = join(host.home, 'sessions')
      const log = (existsSync(root) ? readdirSync(root) : []).map((d) => join(root, d, sid, 'session.jsonl')).find((f) => existsSync(f))
      seen.push(log ? readFileSync(log, 'utf8') : '(no log)')
    })
    await say(host, 'Disk', 'PLANT-D goes first')
    expect(seen[0]).toContain('PLANT-D goes first')
    expect(seen[0]).toContain('Ada-on-disk')
  })
})

describe('[PASS], missed and failed members', () => {
  it('[PASS] variants are not posted; a silent member is marked missed and the round goes on', async () => {
    const host = await start(
      {
        ada: { text: '[pass]' },
        bob: { text: 'slow', delayMs: 10_000 },
        cy: { text: '**PASS.**' },
        dee: { text: 'Dee speaks' },
      },
      { turnTimeoutMs: 300 },
    )
    await bots(host, ['Ada', 'Bob', 'Cy', 'Dee'])
    await host.ctx.botRooms.createGroup(user, { name: 'Quiet', members: ['Ada', 'Bob', 'Cy', 'Dee'], mode: 'everyone' })
    await say(host, 'Quiet', 'anyone?')
    const log = roomLog(host, 'Quiet')
    expect(log).not.toMatch(/pass/i)
    expect(log).toContain('_Bob did not answer within 0.3 s and was marked missed._')
    expect(log).toContain('**Dee:** Dee speaks')
    expect(
      host.ctx.botRooms
        .rounds()
        .at(-1)!
        .turns.map((t) => t.outcome),
    ).toEqual(['pass', 'missed', 'pass', 'posted'])
    // Bob's cancelled turn does not linger.
    const bobSession = host.ctx.botRooms.group('Quiet')!.memberSessions[host.ctx.botRoster.find('Bob')!.id]!
    expect(host.ctx.agents.get(SessionId(bobSession))!.status).toBe('idle')
  })

  it("stopping the room's turn marks the speaking member stopped, not missed, and leaves no turn timer behind", async () => {
    const host = await start({ ada: { text: 'never in time', delayMs: 30_000 }, bob: { text: 'Bob' } }, { turnTimeoutMs: 600_000 })
    await bots(host, ['Ada', 'Bob'])
    const g = await host.ctx.botRooms.createGroup(user, { name: 'Stop', members: ['Ada', 'Bob'], mode: 'everyone' })
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    const room = roomOf(host, 'Stop')
    const baseline = timers()
    room.followup(createUserMessage({ content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } }))
    const adaSid = () => host.ctx.botRooms.group('Stop')!.memberSessions[host.ctx.botRoster.find('Ada')!.id]
    while (!adaSid() || host.ctx.agents.get(SessionId(adaSid()!))?.status !== 'running') await new Promise((r) => setTimeout(r, 5))
    room.cancel({ kind: 'user' })
    await room.whenIdle()
    expect(
      host.ctx.botRooms
        .rounds()
        .at(-1)!
        .turns.map((t) => t.outcome),
    ).toEqual(['stopped'])
    expect(host.ctx.botRooms.roundRunning(g.id)).toBe(false)
    expect(host.ctx.agents.get(SessionId(adaSid()!))!.status).toBe('idle')
    // Neither the 600 s turn timer nor the cancel grace timer outlives the turn (DSH's own
    // write-behind timers end with a flush).
    for (const sid of [g.roomSessionId!, adaSid()!]) await host.ctx.sessions.flush(host.ctx.agents.get(SessionId(sid))!.session)
    expect(timers()).toBeLessThanOrEqual(baseline)
  })

  it('a failing member is marked failed with a visible notice; the round goes on', async () => {
    const host = await start({ ada: { fail: 'context-overflow' }, bob: { text: 'Bob is fine' } })
    await bots(host, ['Ada', 'Bob'])
    await host.ctx.botRooms.createGroup(user, { name: 'F', members: ['Ada', 'Bob'], mode: 'everyone' })
    await say(host, 'F', 'status')
    const log = roomLog(host, 'F')
    expect(log).toMatch(/_Ada failed and was skipped: .+_/)
    expect(log).toContain('**Bob:** Bob is fine')
    expect(
      host.ctx.botRooms
        .rounds()
        .at(-1)!
        .turns.map((t) => t.outcome),
    ).toEqual(['failed', 'posted'])
  })
})
