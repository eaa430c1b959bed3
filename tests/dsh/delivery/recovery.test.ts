// botDelivery start-up recovery on the real DSH core, two hosts in a row on the same home: the
// three paths of `recoveryAction` — a pending record already in the target's restored inbox is
// re-driven (and runs exactly once), one that is nowhere is sent under its id, one in the log is
// marked delivered, one whose target was deleted is discarded.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createUserMessage, type UserMessage } from '@deepseek-ai/dsh-llm'
import { afterEach, describe, expect, it } from 'vitest'
import { messageText } from '../../../src/delivery/policy.ts'
import { deliverySource } from '../../../src/core/sources.ts'
import { allocateId, type Delivery } from '../../../src/store/index.ts'
import { userTextsSinceLastAssistant } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, type DshHost } from '../../support/dsh-host.ts'
import { killedAtMarker } from '../../support/kill-point.ts'
import { quiesce, team, user, userMessages } from './helpers.ts'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
// Registered after the homes hook, so (after-hooks run last-registered first) hosts go before their homes.
const track = disposedAfterEach()

const on = async (home: string) =>
  track(
    await team({ mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada handled it' } }, bob: { fallback: { text: 'Bob handled it' } } }, { home }),
  )

/** Record a pending Main → target message in team state, exactly as `send` would (outbox first). */
async function recordPending(host: DshHost, to: string, body: string): Promise<Delivery> {
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  const sessionId = String((await host.ctx.botRoster.agentOf(to)).id)
  let d: Delivery | undefined
  await host.ctx.botStore.update((s) => {
    d = {
      id: allocateId(s, 'delivery'),
      from: main.id,
      to,
      kind: 'message',
      body,
      hop: 1,
      replyTo: null,
      createdAt: new Date().toISOString(),
      status: 'pending',
      replyMode: 'user',
      sessionId,
    }
    s.deliveries.push(d)
  })
  return d!
}

function relayMessage(d: Delivery, fromName: string): UserMessage {
  return createUserMessage({
    content: [{ type: 'text', text: messageText('message', fromName, d.body, { replyMode: 'user', hop: d.hop, hopLimit: 6 }) }],
    source: deliverySource(d, fromName, { hop: d.hop }),
  })
}

const CHILD = fileURLToPath(new URL('./fixtures/delivery-child.ts', import.meta.url))

/** Run the child in `queue` mode on `home`, SIGKILL it once it says the message is queued. */
const queuedThenKilled = (home: string) =>
  killedAtMarker<{ deliveryId: string; messageId: string; botId: string; sessionId: string; status: string; inbox: number }>(
    CHILD,
    [home, 'queue', '1'],
    'queued ',
  )

/** The events of one Session's log on disk (plain JSONL in this tier). */
function sessionLog(home: string, sessionId: string): { type: string; data: unknown }[] {
  const find = (dir: string): string | undefined => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) {
        const hit = e.name === sessionId ? join(p, 'session.jsonl') : find(p)
        if (hit) return hit
      }
    }
    return undefined
  }
  const file = find(join(home, 'sessions'))
  if (!file) throw new Error(`no log for ${sessionId}`)
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; data: unknown })
}

const said = (host: DshHost, model: string) =>
  host.adapter.model
    .loopRequests()
    .filter((r) => r.model === model)
    .map((r) => userTextsSinceLastAssistant(r).join('\n'))

describe('delivery start-up recovery (restart on the same home)', () => {
  it("a message already in the target's restored inbox (SIGKILL before its turn) is re-driven, not re-sent, and runs exactly once", async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-delivery-redrive-'))
    homes.push(home)
    // A real DSH process records the delivery, DSH queues it (durable `agent/inbox/spliced`) without
    // starting the turn, and the process is SIGKILLed in that window.
    const q = await queuedThenKilled(home)
    expect(q).toMatchObject({ status: 'idle', inbox: 1 })
    const state = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8')) as { deliveries: Delivery[] }
    expect(state.deliveries.map((d) => [d.id, d.status])).toEqual([[q.deliveryId, 'pending']])
    const onDisk = sessionLog(home, q.sessionId)
    expect(onDisk.some((e) => e.type === 'agent/inbox/spliced' && JSON.stringify(e.data).includes(q.deliveryId))).toBe(true)
    expect(onDisk.filter((e) => e.type === 'user/message')).toEqual([])

    const host = await on(home)
    const delivery = host.ctx.botDelivery
    expect(delivery.recovered).toEqual({ delivered: 0, redriven: 1, sent: 0, discarded: 0, replied: 0 })
    await quiesce(host)
    const ada = await host.ctx.botRoster.agentOf(q.botId)
    expect(String(ada.id)).toBe(q.sessionId)
    const logged = userMessages(ada).filter((m) => m.source.deliveryId === q.deliveryId)
    // exactly once, under DSH's original message id (re-driven, not a second send)
    expect(logged).toHaveLength(1)
    expect(logged[0]!.id).toBe(q.messageId)
    expect(logged[0]!.text).toMatch(/^\[Message from Bot Main\]\n\nQUEUED-IN-RUN-1/)
    // the stalled queue ran: one turn of Ada's model saw the message, once
    expect(said(host, 'ada').filter((t) => t.includes('QUEUED-IN-RUN-1'))).toHaveLength(1)
    expect(ada.inbox.hasPending).toBe(false)
    expect(delivery.delivery(q.deliveryId)).toMatchObject({ status: 'delivered' })
    await host.dispose()

    // a further start finds nothing left to do and sends nothing again
    const again = await on(home)
    expect(again.ctx.botDelivery.recovered).toEqual({ delivered: 0, redriven: 0, sent: 0, discarded: 0, replied: 0 })
    await quiesce(again)
    expect(userMessages(await again.ctx.botRoster.agentOf(q.botId)).filter((m) => m.source.deliveryId === q.deliveryId)).toHaveLength(1)
    expect(again.adapter.model.loopRequests().filter((r) => r.model === 'ada')).toHaveLength(0)
  }, 60_000)

  it('a graceful shutdown with Bot messages still queued leaves them pending (not discarded), and the next start delivers each once', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-delivery-shutdown-'))
    homes.push(home)
    const first = await on(home)
    const roster = first.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const adaAgent = await roster.agentOf(ada.id)
    const d = await recordPending(first, ada.id, 'QUEUED-AT-SHUTDOWN')
    adaAgent.send(relayMessage(d, 'Main'), 'next-turn', false)
    await first.ctx.sessions.flush(adaAgent.session)
    await first.dispose()
    // Whether DSH's shutdown got to log the inbox clear depends on its teardown order; either way
    // the outbox did not call it a discard, and the next start delivers the message once: sent
    // again when the clear was logged, re-driven from the restored inbox when it was not.
    const cleared = sessionLog(home, String(adaAgent.id)).some(
      (e) => e.type === 'agent/inbox/spliced' && (e.data as { outcome?: string }).outcome === 'canceled',
    )
    const state = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8')) as { deliveries: Delivery[] }
    expect(state.deliveries.map((x) => [x.id, x.status])).toEqual([[d.id, 'pending']])

    const second = await on(home)
    expect(second.ctx.botDelivery.recovered).toEqual(
      cleared ? { delivered: 0, redriven: 0, sent: 1, discarded: 0, replied: 0 } : { delivered: 0, redriven: 1, sent: 0, discarded: 0, replied: 0 },
    )
    await quiesce(second)
    expect(userMessages(await second.ctx.botRoster.agentOf(ada.id)).filter((m) => m.source.deliveryId === d.id)).toHaveLength(1)
    expect(said(second, 'ada').filter((t) => t.includes('QUEUED-AT-SHUTDOWN'))).toHaveLength(1)
    expect(second.ctx.botDelivery.delivery(d.id)).toMatchObject({ status: 'delivered' })
    // nobody was told it was lost: it was not
    expect(second.ctx.botDelivery.log().filter((x) => x.kind === 'reply')).toEqual([])
  })

  it('a process that takes over as the writer (the first exited) sends what the first left pending, exactly once, without a restart', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-delivery-takeover-'))
    homes.push(home)
    const first = await on(home)
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const d = await recordPending(first, ada.id, 'LEFT-BY-THE-FIRST-WRITER') // "Sent", as far as the sender knows
    // the second process on the same home follows while the first writes
    const second = track(await team({ mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada handled it' } } }, { home }))
    expect(second.ctx.botStore.status()).toMatchObject({ mode: 'follower', reason: 'lock-held' })
    expect(second.ctx.botDelivery.recovered).toBeUndefined()
    await first.dispose()
    // its next request takes over; becoming the writer runs recovery (no restart)
    expect(await second.ctx.botStore.claim()).toBe('writer')
    await expect.poll(() => second.ctx.botDelivery.recovered, { timeout: 10_000 }).toBeDefined()
    await quiesce(second)
    expect(userMessages(await second.ctx.botRoster.agentOf(ada.id)).filter((m) => m.source.deliveryId === d.id)).toHaveLength(1)
    expect(said(second, 'ada').filter((t) => t.includes('LEFT-BY-THE-FIRST-WRITER'))).toHaveLength(1)
    expect(second.ctx.botDelivery.delivery(d.id)).toMatchObject({ status: 'delivered' })
  })

  it('a record that is nowhere is sent under its id; one already in the log is marked delivered; one to a deleted Bot is discarded', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-delivery-recover-'))
    homes.push(home)
    const first = await on(home)
    const roster = first.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    const gone = await roster.create(user, { name: 'Gone' })
    // nowhere: the crash came between the outbox save and the DSH call
    const lost = await recordPending(first, ada.id, 'NEVER-HANDED-OVER')
    // in the log: DSH ran it, but the "delivered" mark was never saved
    const ran = await recordPending(first, bob.id, 'ALREADY-RAN')
    const bobAgent = await roster.agentOf(bob.id)
    bobAgent.followup(relayMessage(ran, 'Main'))
    await bobAgent.whenIdle()
    await first.ctx.sessions.flush(bobAgent.session)
    await first.ctx.botDelivery.settled()
    await first.ctx.botStore.update((s) => {
      Object.assign(s.deliveries.find((x) => x.id === ran.id)!, { status: 'pending' })
      delete s.deliveries.find((x) => x.id === ran.id)!.outcome
    })
    // a record to a Bot that is gone by the restart (the roster's delete discards pending records in
    // its own transaction; a send racing it can still leave one pending)
    const orphan = await recordPending(first, gone.id, 'TO-A-DELETED-BOT')
    await first.ctx.botStore.update((s) => {
      s.bots[gone.id]!.deleted = { at: new Date().toISOString(), by: 'user' }
    })
    expect(
      first.ctx.botDelivery
        .log()
        .filter((x) => x.status === 'pending')
        .map((x) => x.id),
    ).toEqual([lost.id, ran.id, orphan.id])
    await first.dispose()

    const second = await on(home)
    const delivery = second.ctx.botDelivery
    expect(delivery.recovered).toEqual({ delivered: 1, redriven: 0, sent: 1, discarded: 1, replied: 0 })
    await quiesce(second)
    expect(delivery.delivery(lost.id)).toMatchObject({ status: 'delivered' })
    expect(delivery.delivery(ran.id)).toMatchObject({ status: 'delivered', outcome: "found in the target's log at start-up" })
    expect(delivery.delivery(orphan.id)).toMatchObject({ status: 'discarded', outcome: 'the target Bot is gone' })
    const adaLog = userMessages(await second.ctx.botRoster.agentOf(ada.id)).filter((m) => m.source.deliveryId === lost.id)
    expect(adaLog).toHaveLength(1)
    expect(adaLog[0]!.text).toContain('NEVER-HANDED-OVER')
    expect(userMessages(await second.ctx.botRoster.agentOf(bob.id)).filter((m) => m.source.deliveryId === ran.id)).toHaveLength(1)
    expect(said(second, 'bob')).toEqual([])
    expect(said(second, 'ada').filter((t) => t.includes('NEVER-HANDED-OVER'))).toHaveLength(1)
  })
})
