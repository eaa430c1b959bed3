// botDelivery contracts beyond the basic three (real DSH, scripted model per Bot): own chat vs group
// Sessions in both directions, a Bot busy in a group round is not redirected, the per-turn send
// cap, failure notices for failed and stopped turns, a target deleted with messages queued, the
// Main Bot's refusals, the bounded log read through the service, JSON-only sources.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, type DshHost } from '../../support/dsh-host.ts'
import { teamToolNames, teamToolsIn } from '../../support/team-tools.ts'
import { roomLog, roomOf, say } from '../rooms/helpers.ts'
import { Config } from '../../../src/config.ts'
import { agentOfSession, from, quiesce, signal, slowTool, stateWhere, team, toolResults, turnEnds, user, userMessages, userPrompt } from './helpers.ts'

const track = disposedAfterEach()
const start = async (script: Parameters<typeof team>[0]) => track(await team(script))

const said = (req: RecordedRequest) => userTextsSinceLastAssistant(req).join('\n')
/**
 * The team tools a member Session is meant to be offered: the reading ones (its group's chat, and
 * its own chat where the archive offers `read_own_chat`), sorted. Everything else — sending,
 * stopping, managing Bots and groups — stays in the Bot's own chat.
 */
const memberTools = async () => (await teamToolNames()).filter((n) => n === 'read_group_chat')
const replies = (host: DshHost, botId: string) => host.ctx.botRoster.agentOf(botId).then((a) => userMessages(a).filter((m) => m.source.type === 'reply'))

describe('own chat and group Sessions never mix', () => {
  it('a message_bot to Ada lands only in her own-chat log; a room round for Ada puts nothing in her own chat', async () => {
    let memberSession = ''
    const host = await start({
      mock: {
        fallback: (req) =>
          lastToolResults(req).length
            ? { text: 'sent' }
            : { toolCalls: [{ name: 'message_bot', args: { to: 'Ada', message: 'DIRECT-TO-ADA-5521', reply_to: 'user' } }] },
      },
      ada: { fallback: (req) => ({ text: req.sessionId === memberSession ? 'Ada in the room' : 'Ada in her own chat' }) },
      bob: { fallback: { text: '[PASS]' } },
    })
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    const own = await roster.agentOf(ada.id)
    await host.ctx.botRooms.createGroup(user, { name: 'Dev', members: ['Ada', 'Bob'], admin: 'Ada' })
    await say(host, 'Dev', 'ROOM-ROUND-ONE')
    memberSession = host.ctx.botRooms.group('Dev')!.memberSessions[ada.id]!
    expect(memberSession).toBeTruthy()
    expect(memberSession).not.toBe(String(own.id))
    const member = agentOfSession(host, memberSession)
    await quiesce(host)
    // the round reached Ada's group Session, not her own chat
    expect(JSON.stringify(member.session.events)).toContain('ROOM-ROUND-ONE')
    expect(JSON.stringify(own.session.events)).not.toContain('ROOM-ROUND-ONE')
    expect(userMessages(own)).toEqual([])
    expect(turnEnds(own)).toEqual([])

    userPrompt(await roster.agentOf('bot-1'), 'tell Ada')
    await quiesce(host)
    const direct = userMessages(own).filter((m) => m.text.includes('DIRECT-TO-ADA-5521'))
    expect(direct).toHaveLength(1)
    expect(direct[0]!.source).toMatchObject({ type: 'message', fromName: 'Main' })
    expect(host.ctx.botDelivery.log().map((d) => [d.to, d.sessionId, d.status])).toEqual([[ada.id, String(own.id), 'delivered']])
    expect(JSON.stringify(member.session.events)).not.toContain('DIRECT-TO-ADA-5521')
    expect(userMessages(member).some((m) => m.source.form === 'relay' && m.source.typeId)).toBe(false)

    // a second round: the member request still knows nothing of the direct message; the own chat gets nothing
    const ownBefore = own.session.events.length
    await say(host, 'Dev', 'ROOM-ROUND-TWO')
    await quiesce(host)
    const adaReqs = host.adapter.model.loopRequests().filter((r) => r.model === 'ada')
    const inRoom = adaReqs.filter((r) => r.sessionId === memberSession)
    expect(inRoom.length).toBeGreaterThanOrEqual(2)
    for (const r of inRoom) {
      expect(JSON.stringify(r.messages)).not.toContain('DIRECT-TO-ADA-5521')
      expect(await teamToolsIn(r.toolNames)).toEqual(await memberTools()) // no delivery tool, nor any other team tool
    }
    expect(adaReqs.filter((r) => JSON.stringify(r.messages).includes('DIRECT-TO-ADA-5521')).every((r) => r.sessionId === String(own.id))).toBe(true)
    expect(own.session.events.slice(ownBefore)).toEqual([])
    expect(roomLog(host, 'Dev')).not.toContain('DIRECT-TO-ADA-5521')
  })

  it('a Bot busy in a group round is not redirected: stop_bot finds nothing to stop, message and interrupt run in its own chat, the round finishes', async () => {
    let memberSession = ''
    const adaInRoom = signal()
    const host = await start({
      ada: {
        fallback: (req) => {
          if (req.sessionId !== memberSession && !said(req).includes('SLOW-ROUND')) return { text: 'own chat answer' }
          adaInRoom.fire()
          return { text: 'Ada in the room', delayMs: 1_500 }
        },
      },
      bob: { fallback: { text: '[PASS]' } },
    })
    const roster = host.ctx.botRoster
    const delivery = host.ctx.botDelivery
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    const own = await roster.agentOf(ada.id)
    await host.ctx.botRooms.createGroup(user, { name: 'Dev', members: ['Ada', 'Bob'], admin: 'Ada' })
    const room = roomOf(host, 'Dev')
    userPrompt(room, 'SLOW-ROUND please')
    await adaInRoom.fired
    memberSession = host.ctx.botRooms.group('Dev')!.memberSessions[ada.id]!
    const member = agentOfSession(host, memberSession)
    expect(member.status).toBe('running')
    expect(own.status).toBe('idle')

    // stop_bot addresses the own chat, which is idle: the group turn is not touched
    expect(await delivery.stop(from(host, 'bot-1'), ada.id, 'not needed')).toEqual({ stopped: false, discarded: 0, keptUserPrompts: 0, targetName: 'Ada' })
    expect(member.status).toBe('running')
    // message and interrupt start the own chat at once instead of waiting for the group turn
    const sent = await delivery.send(from(host, bob.id), { to: ada.id, kind: 'message', body: 'WHILE-IN-ROOM', replyMode: 'user' })
    const steered = await delivery.send(from(host, 'bot-1'), { to: ada.id, kind: 'interrupt', body: 'STEER-WHILE-IN-ROOM' })
    expect(sent.targetBusy).toBe(false)
    await own.whenIdle()
    expect(member.status).toBe('running') // the own chat answered both while the group turn still ran
    // (joining the group changed Ada's role: her own chat was told so, in a notice that started no turn)
    expect(userMessages(own).map((m) => m.source.type)).toEqual(['role-notice', 'message', 'interrupt'])
    expect(delivery.delivery(steered.delivery.id)!.sessionId).toBe(String(own.id))

    await room.whenIdle()
    await quiesce(host)
    expect(roomLog(host, 'Dev')).toContain('Ada in the room')
    expect(turnEnds(member).map((e) => e.reason.kind)).toEqual(['completed'])
    expect(JSON.stringify(member.session.events)).not.toMatch(/WHILE-IN-ROOM|stopped your previous turn/)
  })
})

describe('fan-out, failures, deletion, refusals', () => {
  it('one turn may send at most 5 messages: the sixth call is refused with an answer, nothing is sent for it', async () => {
    const host = await start({
      mock: {
        fallback: (req) =>
          lastToolResults(req).length
            ? { text: 'done' }
            : {
                toolCalls: Array.from({ length: 6 }, (_, i) => ({
                  name: 'message_bot',
                  args: { to: i % 2 ? 'Bob' : 'Ada', message: `job ${i}`, reply_to: 'user' },
                })),
              },
      },
      ada: { fallback: { text: 'ok' } },
      bob: { fallback: { text: 'ok' } },
    })
    const roster = host.ctx.botRoster
    await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    const main = await roster.agentOf('bot-1')
    userPrompt(main, 'fan out')
    await quiesce(host)
    const results = toolResults(main, 'message_bot')
    expect(results).toHaveLength(6)
    expect(results.filter((r) => r.startsWith('Sent to '))).toHaveLength(5)
    expect(results.filter((r) => r.startsWith('Refused: Not sent: one turn may send at most 5 Bot messages, and this turn already sent 5.'))).toHaveLength(1)
    expect(host.ctx.botDelivery.log().filter((d) => d.kind === 'message')).toHaveLength(5)
    // the next turn has a fresh budget
    userPrompt(main, 'fan out again')
    await quiesce(host)
    expect(
      toolResults(main, 'message_bot')
        .slice(6)
        .filter((r) => r.startsWith('Sent to ')),
    ).toHaveLength(5)
  })

  it('reply_to me: a failed turn sends the sender a failure notice instead of an answer', async () => {
    const host = await start({
      mock: {
        fallback: (req) =>
          said(req).includes('[Reply from Bot Ada]')
            ? { text: 'seen' }
            : lastToolResults(req).length
              ? { text: 'asked' }
              : { toolCalls: [{ name: 'message_bot', args: { to: 'Ada', message: 'Summarise the repo.' } }] },
      },
      ada: { fallback: { fail: 'context-overflow' } },
    })
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    userPrompt(await roster.agentOf('bot-1'), 'ask Ada')
    await quiesce(host)
    expect(turnEnds(await roster.agentOf(ada.id)).map((e) => e.reason.kind)).toEqual(['error'])
    const [notice] = await replies(host, 'bot-1')
    expect(notice!.text).toMatch(
      /^\[Reply from Bot Ada\]\n\nNo answer: Ada's turn that handled your message \(delivery-1\) failed \(.+\)\. Send the message again if it is still needed\.$/,
    )
    expect(notice!.source).toMatchObject({ type: 'reply', fromBot: ada.id, hop: 2 })
  })

  it('reply_to me: a turn stopped while handling the message sends the sender a "stopped" notice', async () => {
    const host = await start({
      ada: {
        fallback: (req) =>
          said(req).includes('stopped your previous turn')
            ? { text: 'understood' }
            : lastToolResults(req).length
              ? { text: 'done' }
              : { toolCalls: [{ name: 'slow', args: {} }] },
      },
      cy: { fallback: { text: 'ok' } },
    })
    const slow = slowTool(host, 10_000)
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const cy = await roster.create(user, { name: 'Cy', model: 'mock/cy' })
    const sent = await host.ctx.botDelivery.send(from(host, cy.id), { to: ada.id, kind: 'message', body: 'Do the long job.', replyMode: 'sender' })
    await slow.running()
    const result = await host.ctx.botDelivery.stop(from(host, 'bot-1'), ada.id, 'priorities changed')
    expect(result).toMatchObject({ stopped: true, discarded: 0, keptUserPrompts: 0 })
    await quiesce(host)
    const [notice] = await replies(host, cy.id)
    expect(notice!.text).toBe(
      `[Reply from Bot Ada]\n\nNo answer: Ada's turn that handled your message (${sent.delivery.id}) was stopped before it finished (stopped by Main: priorities changed). Send the message again if it is still needed.`,
    )
    expect(host.ctx.botDelivery.delivery(sent.delivery.id)).toMatchObject({ status: 'delivered' })
  })

  it('deleting a Bot with messages queued for it: each is recorded discarded and its sender told the Bot was deleted', async () => {
    const host = await start({
      ada: { fallback: (req) => (lastToolResults(req).length ? { text: 'done' } : { toolCalls: [{ name: 'slow', args: {} }] }) },
      bob: { fallback: { text: 'ok' } },
    })
    const slow = slowTool(host, 10_000)
    const roster = host.ctx.botRoster
    const delivery = host.ctx.botDelivery
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    userPrompt(await roster.agentOf(ada.id), 'long job')
    await slow.running()
    const queued = await delivery.send(from(host, bob.id), { to: ada.id, kind: 'message', body: 'QUEUED-FOR-ADA' })
    expect(queued.targetBusy).toBe(true)
    await roster.delete(user, 'Ada', 'no longer needed')
    await quiesce(host)
    expect(delivery.delivery(queued.delivery.id)).toMatchObject({ status: 'discarded', outcome: expect.stringMatching(/Ada was deleted/) })
    const [report] = await replies(host, bob.id)
    expect(report!.text).toContain(
      `Not delivered: your message to Ada (${queued.delivery.id}) was discarded before Ada read it, because Ada was deleted. The message was: "QUEUED-FOR-ADA".`,
    )
    // a later send to the deleted Bot is an answer, not a crash
    await expect(delivery.send(from(host, bob.id), { to: ada.id, kind: 'message', body: 'x' })).rejects.toThrow(/was deleted; nothing was sent/)
  })

  it("the Main Bot's interrupting message_bot / stop_bot refusals (itself, unknown, deleted, empty) are answers; nothing is recorded", async () => {
    const calls = [
      { name: 'stop_bot', args: { to: 'Main', reason: 'r' } },
      { name: 'message_bot', args: { to: 'main', message: 'm', interrupt: true } },
      { name: 'message_bot', args: { to: 'Nobody', message: 'm', interrupt: true } },
      { name: 'stop_bot', args: { to: 'Gone', reason: 'r' } },
      { name: 'message_bot', args: { to: 'Ada', message: ' ', interrupt: true } },
      { name: 'stop_bot', args: { to: 'Ada', reason: 'idle' } },
    ]
    let i = 0
    const host = await start({
      mock: { fallback: (req): Reply => (lastToolResults(req).length ? { text: 'ok' } : { toolCalls: [calls[i++]!] }) },
      ada: { fallback: { text: 'ok' } },
    })
    const roster = host.ctx.botRoster
    await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    await roster.create(user, { name: 'Gone' })
    await roster.delete(user, 'Gone', 'test')
    const main = await roster.agentOf('bot-1')
    for (let k = 0; k < calls.length; k++) {
      userPrompt(main, `try ${k}`)
      await quiesce(host)
    }
    expect(toolResults(main)).toEqual([
      expect.stringMatching(/^Refused: You cannot stop yourself/),
      expect.stringMatching(/^Refused: You cannot interrupt yourself/),
      'Refused: there is no Bot named or with id "Nobody". Call list_bots to see the team.',
      'Refused: Bot Gone was deleted; nothing was sent. Call list_bots to see the team.',
      'Refused: the message is empty; nothing was sent.',
      'Ada was not working; nothing was stopped.',
    ])
    expect(host.ctx.botDelivery.log()).toEqual([])
    expect(host.adapter.model.loopRequests().filter((r) => r.model === 'ada')).toHaveLength(0)
  })
})

describe('the log and the sources', () => {
  it('the delivery log is bounded (all pending + newest finished), saved, and read through the service', async () => {
    const host = track(
      await team(
        {
          ada: {
            fallback: (req) =>
              said(req).includes('[Message from')
                ? { text: 'ok' }
                : lastToolResults(req).length
                  ? { text: 'done' }
                  : { toolCalls: [{ name: 'slow', args: {} }] },
          },
          bob: { fallback: { text: 'ok' } },
        },
        { config: { team: { ...Config.parse({}).team, keepFinished: 2 } } },
      ),
    )
    const slow = slowTool(host, 10_000)
    const roster = host.ctx.botRoster
    const delivery = host.ctx.botDelivery
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    for (let k = 0; k < 4; k++) {
      await delivery.send(from(host, 'bot-1'), { to: bob.id, kind: 'message', body: `to Bob ${k}`, replyMode: 'user' })
      await quiesce(host)
    }
    expect(delivery.log().map((d) => [d.id, d.status])).toEqual([
      ['delivery-3', 'delivered'],
      ['delivery-4', 'delivered'],
    ])
    const adaAgent = await roster.agentOf(ada.id)
    userPrompt(adaAgent, 'long job')
    await slow.running()
    for (let k = 0; k < 3; k++) await delivery.send(from(host, 'bot-1'), { to: ada.id, kind: 'message', body: `to Ada ${k}`, replyMode: 'user' })
    const last = await delivery.send(from(host, 'bot-1'), { to: bob.id, kind: 'message', body: 'to Bob again', replyMode: 'user' })
    await stateWhere(host, () => delivery.delivery(last.delivery.id)?.status === 'delivered') // Ada stays busy meanwhile
    await delivery.settled()
    const log = delivery.log()
    // three pending records are kept however old; finished ones are capped at 2
    expect(log.filter((d) => d.status === 'pending').map((d) => d.id)).toEqual(['delivery-5', 'delivery-6', 'delivery-7'])
    expect(log.filter((d) => d.status !== 'pending').map((d) => d.id)).toEqual(['delivery-4', 'delivery-8'])
    expect(log.map((d) => d.id)).toEqual(['delivery-4', 'delivery-5', 'delivery-6', 'delivery-7', 'delivery-8'])
    for (const d of log) {
      expect(d).toMatchObject({ from: 'bot-1', kind: 'message', hop: 1, createdAt: expect.any(String) })
      if (d.status !== 'pending') expect(d).toMatchObject({ outcome: expect.stringMatching(/^in the target's log at /), updatedAt: expect.any(String) })
    }
    // what the service shows is what is saved
    const saved = JSON.parse(readFileSync(join(host.home, 'bot', 'state.json'), 'utf8')) as { deliveries: unknown[] }
    expect(saved.deliveries).toEqual(JSON.parse(JSON.stringify(log)))
    // once Ada's queue runs, the finished records are capped again
    adaAgent.cancel({ kind: 'user' }, { keepInbox: true })
    await adaAgent.whenIdle()
    host.ctx.botDelivery.redrive(adaAgent)
    await quiesce(host)
    expect(delivery.log().map((d) => [d.id, d.status])).toEqual([
      ['delivery-7', 'delivered'],
      ['delivery-8', 'delivered'],
    ])
  })

  it('every relay source in every log (message, interrupt, stop, reply, discard report) is plain JSON, with no undefined value', async () => {
    const host = await start({
      ada: {
        fallback: (req) =>
          said(req).includes('stopped your previous turn') || said(req).includes('[Interruption')
            ? { text: 'ok' }
            : lastToolResults(req).length
              ? { text: 'done' }
              : { toolCalls: [{ name: 'slow', args: {} }] },
      },
      bob: { fallback: { text: 'ok' } },
    })
    const slow = slowTool(host, 10_000)
    const roster = host.ctx.botRoster
    const delivery = host.ctx.botDelivery
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    await delivery.send(from(host, 'bot-1'), { to: bob.id, kind: 'message', body: 'reply to me' })
    await delivery.send(from(host, 'bot-1'), { to: bob.id, kind: 'message', body: 'answer the user', replyMode: 'user' })
    await delivery.send(from(host, 'bot-1'), { to: bob.id, kind: 'interrupt', body: 'a correction' })
    await quiesce(host)
    userPrompt(await roster.agentOf(ada.id), 'long job')
    await slow.running()
    await delivery.send(from(host, bob.id), { to: ada.id, kind: 'message', body: 'queued' })
    await delivery.stop(from(host, 'bot-1'), ada.id, 'enough')
    await quiesce(host)
    const kinds = new Set<string>()
    for (const agent of host.ctx.agents.list()) {
      for (const m of userMessages(agent)) {
        if (m.source.form !== 'relay') continue
        kinds.add(String(m.source.type))
        expect(JSON.parse(JSON.stringify(m.source))).toEqual(m.source)
        expect(Object.values(m.source)).not.toContain(undefined)
        expect(m.source).toMatchObject({
          kind: 'plugin',
          plugin: 'bot-team',
          deliveryId: expect.stringMatching(/^delivery-\d+$/),
          fromBot: expect.any(String),
          fromName: expect.any(String),
          hop: expect.any(Number),
        })
      }
    }
    expect([...kinds].sort()).toEqual(['interrupt', 'message', 'reply', 'stop'])
    // the discard report reached Bob (a reply from Ada's side)
    expect((await replies(host, bob.id)).some((m) => m.text.includes('Not delivered'))).toBe(true)
  })

  it("the tools tell the model the receiver cannot see its chat; a member Session is offered only the team's reading tools (no delivery tool)", async () => {
    const host = await start({ mock: { fallback: { text: 'hi' } }, ada: { fallback: { text: 'Ada here' } }, bob: { fallback: { text: '[PASS]' } } })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    const main = await host.ctx.botRoster.agentOf('bot-1')
    userPrompt(main, 'hello')
    await quiesce(host)
    const req = host.adapter.model.loopRequests().find((r) => r.sessionId === String(main.id))!
    expect(req.tools.find((t) => t.name === 'message_bot')!.description).toMatch(/cannot see your chat: be self-contained/)
    expect(req.tools.find((t) => t.name === 'message_bot')!.description).toMatch(/interrupt: into its current turn/)
    expect(req.tools.find((t) => t.name === 'stop_bot')!.description).toMatch(/Bot messages queued for it are dropped \(senders told\)/)

    // a real member Session: Ada's turn in a group round
    await host.ctx.botRooms.createGroup(user, { name: 'Dev', members: ['Ada', 'Bob'], admin: 'Ada' })
    await say(host, 'Dev', '@Ada hello')
    await quiesce(host)
    const memberSession = host.ctx.botRooms.group('Dev')!.memberSessions[ada.id]!
    const inRoom = host.adapter.model.loopRequests().filter((r) => r.sessionId === memberSession)
    expect(inRoom.length).toBeGreaterThan(0)
    const teamTools = await teamToolNames()
    expect(teamTools).toEqual(expect.arrayContaining(['message_bot', 'stop_bot', 'read_group_chat']))
    expect(await memberTools()).toContain('read_group_chat')
    for (const r of inRoom) expect(await teamToolsIn(r.toolNames)).toEqual(await memberTools())
  })
})
