// The pause switch on the real DSH core, in-process: Bot-started messages are held (records stay
// pending), the person's own prompts still run, resume releases the held messages in order, and a
// pause survives a restart (a second host on the same home).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { lastToolResults, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { quiesce, team, user, userMessages, userPrompt } from '../delivery/helpers.ts'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
const track = disposedAfterEach()

/** Main answers a prompt with two messages to Ada (in this order), then says it is done. */
const main = (req: RecordedRequest): Reply =>
  lastToolResults(req).length
    ? { text: 'sent both' }
    : {
        toolCalls: [
          { name: 'message_bot', args: { to: 'Ada', message: 'first', reply_to: 'user' } },
          { name: 'message_bot', args: { to: 'Ada', message: 'second', reply_to: 'user' } },
        ],
      }
const script = { mock: { fallback: main }, ada: { fallback: { text: 'Ada done' } } }

describe('pause switch (in-process DSH)', () => {
  it("holds Bot-started messages while paused; the person's prompt still runs; resume delivers them in order", async () => {
    const host = track(await team(script))
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botPause.pause('user', 'lunch')
    expect(host.ctx.botPause.isPaused()).toBe(true)

    const mainAgent = await roster.agentOf(roster.bots().find((b) => b.main)!.id)
    userPrompt(mainAgent, 'tell Ada two things')
    await quiesce(host)
    const adaAgent = await roster.agentOf(ada.id)
    // The person's prompt ran (Main answered); its messages are recorded but not handed over.
    expect(mainAgent.session.events.some((e) => e.type === 'turn/end')).toBe(true)
    expect(host.ctx.botDelivery.log().map((d) => [d.body, d.status])).toEqual([
      ['first', 'pending'],
      ['second', 'pending'],
    ])
    expect(userMessages(adaAgent)).toEqual([])

    await host.ctx.botPause.resume()
    await quiesce(host)
    expect(host.ctx.botDelivery.log().map((d) => [d.body, d.status])).toEqual([
      ['first', 'delivered'],
      ['second', 'delivered'],
    ])
    expect(userMessages(adaAgent).map((m) => /\b(first|second)\b/.exec(m.text)?.[1])).toEqual(['first', 'second'])
  })

  it('a pause survives a restart: held messages stay pending until the person resumes', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-pause-'))
    homes.push(home)
    const first = track(await team(script, { home }))
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await first.ctx.botPause.pause('user')
    userPrompt(await first.ctx.botRoster.agentOf('bot-1'), 'tell Ada two things')
    await quiesce(first)
    await first.dispose()

    const second = track(await team(script, { home }))
    await quiesce(second)
    expect(second.ctx.botPause.isPaused()).toBe(true)
    const adaAgent = await second.ctx.botRoster.agentOf(ada.id)
    expect(userMessages(adaAgent)).toEqual([])
    expect(second.ctx.botDelivery.log().map((d) => d.status)).toEqual(['pending', 'pending'])

    await second.ctx.botPause.resume()
    await quiesce(second)
    expect(userMessages(adaAgent).map((m) => /\b(first|second)\b/.exec(m.text)?.[1])).toEqual(['first', 'second'])
    expect(second.ctx.botDelivery.log().map((d) => d.status)).toEqual(['delivered', 'delivered'])
  })
})

describe('other holds through the same seam (addHold)', () => {
  it('a hold on one Bot keeps its messages back while messages to other Bots go; lifting it releases them', async () => {
    const toBoth = (req: RecordedRequest): Reply =>
      lastToolResults(req).length
        ? { text: 'sent' }
        : {
            toolCalls: [
              { name: 'message_bot', args: { to: 'Ada', message: 'for Ada', reply_to: 'user' } },
              { name: 'message_bot', args: { to: 'Bob', message: 'for Bob', reply_to: 'user' } },
            ],
          }
    const host = track(await team({ mock: { fallback: toBoth }, ada: { fallback: { text: 'ok' } } }))
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/ada' })
    // A spending cap would register like this: a reason for the capped Bot, nothing for the others.
    const lift = host.ctx.botPause.addHold((target) => (target.botId === ada.id ? 'Ada reached her daily cap' : undefined))
    expect(host.ctx.botPause.heldBecause({ botId: ada.id })).toBe('Ada reached her daily cap')
    expect(host.ctx.botPause.holdsBotWork({ botId: bob.id })).toBe(false)

    userPrompt(await roster.agentOf('bot-1'), 'tell both')
    await quiesce(host)
    expect(host.ctx.botDelivery.log().map((d) => [d.body, d.status])).toEqual([
      ['for Ada', 'pending'],
      ['for Bob', 'delivered'],
    ])
    expect(userMessages(await roster.agentOf(ada.id))).toEqual([])

    lift() // disposing the hold releases held work
    await quiesce(host)
    expect(host.ctx.botDelivery.log().map((d) => [d.body, d.status])).toEqual([
      ['for Ada', 'delivered'],
      ['for Bob', 'delivered'],
    ])
    expect(userMessages(await roster.agentOf(ada.id)).map((m) => /for Ada/.test(m.text))).toEqual([true])
  })
})

describe('pause switch in rooms (in-process DSH)', () => {
  it('a post while paused starts no round until the person resumes', async () => {
    const host = track(await team({ mock: { fallback: { text: 'Main says hi' } }, ada: { fallback: { text: 'Ada says hi' } } }))
    await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const group = await host.ctx.botRooms.createGroup(user, { name: 'Crew', members: ['Main', 'Ada'] })
    await quiesce(host)
    const room = await host.ctx.botRooms.roomAgent(group.id)
    await host.ctx.botPause.pause('user')
    // The room's turn says why it waits: observed on the room Session's own events.
    const held = new Promise<void>((resolve) => {
      const stop = host.ctx.on('session/event', (session, event) => {
        if (String(session.id) === String(room.id) && JSON.stringify(event.data ?? '').includes('Held: the team is paused')) {
          stop()
          resolve()
        }
      })
    })
    await host.ctx.botRooms.post(user, 'Crew', 'good morning')
    await held
    expect(host.ctx.botRooms.rounds(group.id)).toEqual([])
    const memberTurns = () => host.ctx.agents.list().filter((a) => a.id !== room.id && host.ctx.botRoster.roomOf(String(a.id)) === group.id)
    expect(memberTurns().filter((a) => a.status === 'running')).toEqual([])

    await host.ctx.botPause.resume()
    await quiesce(host)
    const [round] = host.ctx.botRooms.rounds(group.id)
    expect(round!.turns.map((t) => t.outcome)).toContain('posted')
  })
})
