// botDelivery on the real DSH core, in-process, with a scripted model per Bot.
import { describe, expect, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { Config } from '../../../src/config.ts'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { from, nextTurnEnd, quiesce, slowTool, team, toolResults, turnAt, turnEnds, user, userMessages, userPrompt } from './helpers.ts'

const track = disposedAfterEach()
const start = async (script: Parameters<typeof team>[0]) => track(await team(script))

/** A rule: call `name` once per turn opened by a text matching `when`, then answer `after`. */
function callOnce(name: string, args: unknown, after: (req: RecordedRequest) => string) {
  return (req: RecordedRequest): Reply => {
    if (lastToolResults(req).length) return { text: after(req) }
    return { toolCalls: [{ name, args }] }
  }
}
const said = (req: RecordedRequest) => userTextsSinceLastAssistant(req).join('\n')

describe('botDelivery (in-process DSH)', () => {
  it('message_bot to an idle Bot starts its turn; the answer comes back to the sender as a new turn', async () => {
    const host = await start({
      mock: {
        fallback: (req) => {
          if (said(req).includes('[Reply from Bot Ada]')) return { text: `noted: ${said(req).includes('FOUR') ? 'FOUR' : '?'}` }
          return callOnce('message_bot', { to: 'ada', message: 'What is 2+2? Answer in capitals.' }, () => 'asked Ada')(req)
        },
      },
      ada: { fallback: { text: 'FOUR' } },
    })
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const main = await roster.agentOf(roster.bots()[0]!.id)
    userPrompt(main, 'ask Ada')
    await quiesce(host)
    const adaAgent = await roster.agentOf(ada.id)

    const [toAda] = userMessages(adaAgent)
    expect(toAda!.text).toMatch(/^\[Message from Bot Main\]\n\nWhat is 2\+2\?/)
    expect(toAda!.source).toEqual({
      kind: 'plugin',
      plugin: 'bot-team',
      form: 'relay',
      deliveryId: 'delivery-1',
      fromBot: 'bot-1',
      fromName: 'Main',
      type: 'message',
      hop: 1,
      replyTo: 'sender',
      budget: `budget:${String(main.id)}#1`,
      mode: 'workspace-write',
      network: 'internet',
    })
    expect(toolResults(main, 'message_bot')[0]).toMatch(/^Sent to Ada \(delivery-1, hop 1\)\. Ada was idle; the message started its turn\./)
    const reply = userMessages(main).find((m) => m.source.type === 'reply')!
    expect(reply.text).toBe('[Reply from Bot Ada]\n\nFOUR')
    expect(reply.source).toMatchObject({ fromName: 'Ada', hop: 2 })
    expect(turnAt(main, reply.index)).toBe(2) // a new turn of the sender
    expect(
      main.session.events
        .filter((e) => e.type === 'assistant/message')
        .map((e: any) => e.data.message.content.find((b: any) => b.type === 'text')?.text)
        .filter(Boolean),
    ).toContain('noted: FOUR')
    expect(host.ctx.botDelivery.log().map((d) => [d.id, d.kind, d.from, d.to, d.hop, d.status])).toEqual([
      ['delivery-1', 'message', 'bot-1', ada.id, 1, 'delivered'],
      ['delivery-2', 'reply', ada.id, 'bot-1', 2, 'delivered'],
    ])
  })

  it('message_bot to a busy Bot is handled in its next turn, after the current one ends', async () => {
    const host = await start({
      mock: { fallback: callOnce('message_bot', { to: 'Ada', message: 'Also check the README.', reply_to: 'user' }, () => 'queued') },
      ada: { fallback: (req) => (said(req).includes('[Message from') ? { text: 'README checked' } : callOnce('slow', {}, () => 'slow part finished')(req)) },
    })
    const slow = slowTool(host, 'until-released')
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const adaAgent = await roster.agentOf(ada.id)
    userPrompt(adaAgent, 'do the slow thing')
    await slow.running()
    const mainAgent = await roster.agentOf('bot-1')
    const mainDone = nextTurnEnd(host, String(mainAgent.id))
    userPrompt(mainAgent, 'tell Ada about the README')
    await mainDone // Main sent while Ada was still busy
    slow.release()
    await quiesce(host)
    const main = await roster.agentOf('bot-1')
    expect(toolResults(main, 'message_bot')[0]).toMatch(/Ada is busy; it will read it after its current turn\. Ada will answer the user in its own chat/)
    const relayed = userMessages(adaAgent).find((m) => m.source.type === 'message')!
    expect(turnAt(adaAgent, relayed.index)).toBe(2)
    const ends = turnEnds(adaAgent)
    expect(ends.map((e) => [e.turn, e.reason.kind])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ])
    // turn 1 finished its slow work before the message entered
    const firstEnd = adaAgent.session.events.findIndex((e) => e.type === 'turn/end')
    expect(firstEnd).toBeLessThan(relayed.index)
    // reply_to user: nothing comes back
    expect(userMessages(main).some((m) => m.source.type === 'reply')).toBe(false)
  })

  it("message_bot with interrupt enters the busy Bot's current turn at its next request; to an idle Bot it starts a turn", async () => {
    let phase = 'busy'
    const host = await start({
      mock: {
        fallback: (req) =>
          callOnce('message_bot', { to: 'Ada', message: phase === 'busy' ? 'STOP-USING-TABS' : 'WAKE-UP', interrupt: true }, () => 'done')(req),
      },
      ada: {
        fallback: (req) =>
          said(req).includes('[Interruption') && !lastToolResults(req).length ? { text: 'ok, woke' } : callOnce('slow', {}, () => 'finished')(req),
      },
    })
    const slow = slowTool(host, 'until-released')
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const adaAgent = await roster.agentOf(ada.id)
    const main = await roster.agentOf('bot-1')
    userPrompt(adaAgent, 'format the code')
    await slow.running()
    const mainDone = nextTurnEnd(host, String(main.id))
    userPrompt(main, 'interrupt Ada')
    await mainDone // the interruption is in Ada's next step while her slow tool still runs
    slow.release()
    await quiesce(host)
    expect(toolResults(main, 'message_bot')[0]).toMatch(/^Interrupted Ada \(delivery-1, hop 1\): it reads your message at its next step/)
    const adaRequests = host.adapter.model.loopRequests().filter((r) => r.model === 'ada')
    expect(adaRequests).toHaveLength(2)
    expect(said(adaRequests[0]!)).not.toContain('STOP-USING-TABS')
    // the next request of the SAME turn carries it, after the slow tool's result
    expect(lastToolResults(adaRequests[1]!)[0]!.text).toBe('slow work done')
    expect(adaRequests[1]!.messages.at(-1)!.text + said(adaRequests[1]!)).toContain('STOP-USING-TABS')
    const steered = userMessages(adaAgent).find((m) => m.source.type === 'interrupt')!
    expect(turnAt(adaAgent, steered.index)).toBe(1)
    expect(turnEnds(adaAgent)).toHaveLength(1)

    phase = 'idle'
    userPrompt(main, 'interrupt Ada again')
    await quiesce(host)
    const again = userMessages(adaAgent).filter((m) => m.source.type === 'interrupt')[1]!
    expect(again.text).toContain('WAKE-UP')
    expect(turnAt(adaAgent, again.index)).toBe(2)
    expect(toolResults(main, 'message_bot')[1]).toMatch(/^Ada was idle; your message \(delivery-2, hop 1\) started its turn\./)
  })

  it("stop_bot aborts the turn, discards queued Bot messages (recorded, reported to each sender), keeps the user's prompts, and tells the target why", async () => {
    const host = await start({
      mock: { fallback: callOnce('stop_bot', { to: 'Ada', reason: 'the user changed the plan' }, () => 'stopped') },
      ada: {
        fallback: (req) =>
          said(req).includes('stopped your previous turn') || said(req).includes('LATER')
            ? { text: 'understood' }
            : callOnce('slow', {}, () => 'finished')(req),
      },
      bob: { fallback: { text: 'ok' } },
      cy: { fallback: { text: 'ok' } },
    })
    const slow = slowTool(host, 10_000)
    const roster = host.ctx.botRoster
    const delivery = host.ctx.botDelivery
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    const cy = await roster.create(user, { name: 'Cy', model: 'mock/cy' })
    const adaAgent = await roster.agentOf(ada.id)
    userPrompt(adaAgent, 'long job')
    await slow.running()
    const fromBob = await delivery.send(from(host, bob.id), { to: ada.id, kind: 'message', body: 'BOB-QUEUED' })
    const fromCy = await delivery.send(from(host, cy.id), { to: ada.id, kind: 'message', body: 'CY-QUEUED' })
    const kept = userPrompt(adaAgent, 'LATER: the user asks something else')
    expect(adaAgent.inbox.nextTurn).toHaveLength(3)

    const main = await roster.agentOf('bot-1')
    userPrompt(main, 'stop Ada')
    await quiesce(host)

    expect(toolResults(main, 'stop_bot')[0]).toBe(
      "Stopped Ada's turn. 2 queued Bot message(s) were discarded and their senders told. 1 prompt(s) the user had queued are kept. Its next turn tells it that you stopped it and why.",
    )
    const ends = turnEnds(adaAgent)
    expect(ends[0]).toMatchObject({ turn: 1, reason: { kind: 'aborted', reason: { reason: 'stopped by Main: the user changed the plan' } } })
    for (const [d, sender] of [
      [fromBob.delivery, bob],
      [fromCy.delivery, cy],
    ] as const) {
      expect(delivery.delivery(d.id)).toMatchObject({ status: 'discarded', outcome: 'discarded: Main stopped Ada (the user changed the plan)' })
      const report = userMessages(await roster.agentOf(sender.id)).find((m) => m.source.type === 'reply')!
      expect(report.text).toContain(
        `Not delivered: your message to Ada (${d.id}) was discarded before Ada read it, because Main stopped Ada ("the user changed the plan")`,
      )
    }
    const adaLog = userMessages(adaAgent)
    expect(adaLog.some((m) => m.text.includes('QUEUED'))).toBe(false)
    // the next turn is the stop notice, then the user's prompt under its original id
    const notice = adaLog.find((m) => m.source.type === 'stop')!
    expect(turnAt(adaAgent, notice.index)).toBe(2)
    expect(notice.text).toBe('[Bot Main stopped your previous turn]\n\nthe user changed the plan')
    const again = adaLog.find((m) => m.text.startsWith('LATER'))!
    expect(again.id).toBe(String(kept.id))
    expect(turnAt(adaAgent, again.index)).toBe(3)
    expect(ends.map((e) => e.reason.kind)).toEqual(['aborted', 'completed', 'completed'])
  })

  it('a non-Main Bot is offered neither interrupt nor stop_bot: an interrupt it passes anyway is a queued message, a stop an unknown tool; the service refuses both', async () => {
    let tool = 'message_bot'
    const host = await start({
      bee: {
        fallback: (req) =>
          callOnce(tool, { to: 'Ada', message: 'x', reason: 'y', interrupt: true, reply_to: 'user' }, (r) => `said: ${lastToolResults(r)[0]!.text}`)(req),
      },
      ada: { fallback: { text: 'ok' } },
    })
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bee = await roster.create(user, { name: 'Bee', model: 'mock/bee' })
    const beeAgent = await roster.agentOf(bee.id)
    userPrompt(beeAgent, 'interrupt')
    await quiesce(host)
    tool = 'stop_bot'
    userPrompt(beeAgent, 'stop')
    await quiesce(host)
    const offered = host.adapter.model.loopRequests().find((r) => r.model === 'bee')!.tools
    expect(offered.map((t) => t.name)).not.toContain('stop_bot')
    expect(Object.keys((offered.find((t) => t.name === 'message_bot')!.parameters as { properties: object }).properties)).not.toContain('interrupt')
    const [queued, stopped] = toolResults(beeAgent)
    // The undeclared argument never reaches the service: what Bee may do, a queued message, is done.
    expect(queued).toMatch(/^Sent to Ada \(delivery-1, hop 1\)\./)
    expect(stopped).not.toMatch(/^Stopped/)
    expect(host.ctx.botDelivery.log().map((d) => d.kind)).toEqual(['message'])
    await expect(host.ctx.botDelivery.send(from(host, bee.id), { to: ada.id, kind: 'interrupt', body: 'now' })).rejects.toThrow(/Only a Main Bot may interrupt/)
    await expect(host.ctx.botDelivery.stop(from(host, bee.id), ada.id, 'y')).rejects.toThrow(/Only a Main Bot may stop/)
  })

  it('refuses unknown targets, self-messages and deleted targets as answers', async () => {
    const calls: unknown[] = [
      { to: 'Nobody', message: 'hi' },
      { to: 'Bee', message: 'me' },
      { to: 'Gone', message: 'hi' },
      { to: 'Ada', message: '  ' },
    ]
    let i = 0
    const host = await start({
      bee: { fallback: (req) => (lastToolResults(req).length ? { text: 'ok' } : { toolCalls: [{ name: 'message_bot', args: calls[i++] }] }) },
    })
    const roster = host.ctx.botRoster
    await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    await roster.create(user, { name: 'Gone' })
    await roster.delete(user, 'Gone', 'test')
    const bee = await roster.create(user, { name: 'Bee', model: 'mock/bee' })
    const agent = await roster.agentOf(bee.id)
    for (let k = 0; k < calls.length; k++) {
      userPrompt(agent, `try ${k}`)
      await quiesce(host)
    }
    expect(toolResults(agent)).toEqual([
      'Refused: there is no Bot named or with id "Nobody". Call list_bots to see the team.',
      expect.stringMatching(/^Refused: You cannot message yourself/),
      'Refused: Bot Gone was deleted; nothing was sent. Call list_bots to see the team.',
      'Refused: the message is empty; nothing was sent.',
    ])
    expect(host.ctx.botDelivery.log()).toEqual([])
  })

  it('hops: two Bots that always delegate back to each other stop at the limit; model requests are bounded', async () => {
    const delegate =
      (to: string) =>
      (req: RecordedRequest): Reply =>
        lastToolResults(req).length
          ? { text: `gave up: ${lastToolResults(req)[0]!.text.slice(0, 40)}` }
          : { toolCalls: [{ name: 'message_bot', args: { to, message: 'please handle this for me', reply_to: 'user' } }] }
    const host = await start({ ada: { fallback: delegate('Bob') }, bob: { fallback: delegate('Ada') } })
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    userPrompt(await roster.agentOf(ada.id), 'start the ping-pong')
    await quiesce(host)
    const limit = host.ctx.botLimits.inForce().hopLimit
    const requests = host.adapter.model.loopRequests()
    // one user turn at hop 0 plus one turn per hop 1..limit, two requests each (call, then answer)
    expect(requests).toHaveLength(2 * (limit + 1))
    expect(host.ctx.botDelivery.log().map((d) => d.hop)).toEqual([1, 2, 3, 4, 5, 6])
    const results = [...toolResults(await roster.agentOf(ada.id)), ...toolResults(await roster.agentOf(bob.id))]
    expect(results.filter((r) => r.startsWith('Refused: Not sent: the hop limit (6) is reached'))).toHaveLength(1)
  })

  it('hops with replies (reply_to me) and a fan-out cap terminate at the derived count: 18 messages, 18 replies, 74 model requests', async () => {
    const fanout =
      (others: string[]) =>
      (req: RecordedRequest): Reply =>
        lastToolResults(req).length
          ? { text: 'waiting for answers' }
          : { toolCalls: others.map((to) => ({ name: 'message_bot', args: { to, message: 'help me' } })) }
    const host = track(
      await team(
        { ada: { fallback: fanout(['Bob', 'Cy']) }, bob: { fallback: fanout(['Ada', 'Cy']) }, cy: { fallback: fanout(['Ada', 'Bob']) } },
        { config: { team: { ...Config.parse({}).team, hopLimit: 3 } } }, // the defaults (work budget 40, 5 sends per turn) with hop limit 3
      ),
    )
    const roster = host.ctx.botRoster
    await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    await roster.create(user, { name: 'Cy', model: 'mock/cy' })
    expect(host.ctx.botLimits.inForce().hopLimit).toBe(3)
    userPrompt(await roster.agentOf('bot-2'), 'go')
    await quiesce(host)
    const log = host.ctx.botDelivery.log()
    const messages = log.filter((d) => d.kind === 'message')
    const replies = log.filter((d) => d.kind === 'reply')
    expect(messages.every((d) => d.hop <= 3)).toBe(true)
    expect(Math.max(...replies.map((d) => d.hop))).toBeLessThanOrEqual(4) // a reply may carry limit+1; its turn cannot send on
    expect(replies).toHaveLength(messages.length) // every message (reply_to me) is answered once
    // The exact count. Every turn is two model requests (the fan-out call, then the answer), and
    // every message and reply starts its own turn (DSH claims one queued follow-up per turn, so none
    // merge; the hops below do not depend on timing). A turn at hop h sends 2 messages at hop h+1
    // (refused past 3); a message's turn ends with a reply at hop h+1 to its sender, whose turn fans
    // out too. Counting turns by hop:
    //   message turns m(1) = 2 (from the person's turn), m(2) = 2·m(1) = 4, m(3) = 2·m(2) + 2·r(2) = 12;
    //   reply turns   r(2) = m(1) = 2, r(3) = m(2) = 4, r(4) = m(3) = 12 (these cannot send on);
    //   messages = 2 + 4 + 12 = 18, replies = 18 — 36 draws, so the work budget (40) refuses nothing;
    //   turns = 1 + 18 + 18 = 37 → 74 model requests.
    expect(messages.map((d) => d.hop).sort()).toEqual([1, 1, ...Array(4).fill(2), ...Array(12).fill(3)])
    expect(replies).toHaveLength(18)
    expect(host.adapter.model.loopRequests()).toHaveLength(74)
  })
})
