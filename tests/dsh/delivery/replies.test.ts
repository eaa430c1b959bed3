// Replies and room reports through the outbox, exactly once across restarts: a reply whose turn
// ended before the reply was recorded is built from the log and sent at the next start; a turn a
// crash cut gets a "cut off" reply; neither is sent again by a later start; a room's report for
// one post is recorded and sent once, however often it is asked for.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { readSourceOf } from '../../../src/core/sources.ts'
import { disposedAfterEach, type DshHost } from '../../support/dsh-host.ts'
import { killedAtMarker } from '../../support/kill-point.ts'
import { from, quiesce, team, user, userMessages } from './helpers.ts'

const CHILD = fileURLToPath(new URL('./fixtures/reply-child.ts', import.meta.url))
const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
const track = disposedAfterEach()
const newHome = () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-replies-'))
  homes.push(home)
  return home
}
const on = async (home: string) => track(await team({ mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada final answer' } } }, { home }))

/** The replies in the Main Bot's chat: which delivery each answers, and its text. */
async function repliesInMain(host: DshHost) {
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  return userMessages(await host.ctx.botRoster.agentOf(main.id)).flatMap((m) => {
    const s = readSourceOf(m.source, 'reply')
    return s ? [{ answers: s.answers, text: m.text }] : []
  })
}

describe('replies through the outbox', () => {
  it("a message whose turn ended before its reply was recorded gets the reply at the next start, built from the target's log, and only once", async () => {
    const home = newHome()
    const first = await on(home)
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const main = first.ctx.botRoster.bots().find((b) => b.main)!
    const { delivery } = await first.ctx.botDelivery.send(from(first, main.id), { to: ada.id, kind: 'message', body: 'what is the status?', replyMode: 'user' })
    await quiesce(first)
    expect(await repliesInMain(first)).toEqual([])
    // The crash window: Ada's turn ended (on disk) and the reply was never recorded — the record as
    // it is then is a delivered message that wants its answer back and has no reply.
    await first.ctx.botStore.update((s) => {
      s.deliveries.find((d) => d.id === delivery.id)!.replyMode = 'sender'
    })
    await first.dispose()

    const second = await on(home)
    await second.ctx.botDelivery.ready
    await quiesce(second)
    expect(second.ctx.botDelivery.recovered).toMatchObject({ replied: 1 })
    const replies = await repliesInMain(second)
    expect(replies).toEqual([{ answers: delivery.id, text: expect.stringContaining('Ada final answer') }])
    const recorded = second.ctx.botDelivery.delivery(delivery.id)!.reply
    expect(second.ctx.botDelivery.delivery(recorded!)).toMatchObject({ kind: 'reply', replyTo: delivery.id, status: 'delivered' })
    await second.dispose()

    const third = await on(home)
    await third.ctx.botDelivery.ready
    await quiesce(third)
    expect(third.ctx.botDelivery.recovered).toMatchObject({ replied: 0 })
    expect(await repliesInMain(third)).toHaveLength(1)
  })

  it('a message whose turn a SIGKILL cut gets one "cut off" reply at the next start, and none again after another restart', async () => {
    const home = newHome()
    const k = await killedAtMarker<{ deliveryId: string }>(CHILD, [home])
    const second = await on(home)
    await second.ctx.botDelivery.ready
    await quiesce(second)
    expect(await repliesInMain(second)).toEqual([
      {
        answers: k.deliveryId,
        text: expect.stringContaining(
          `No answer: Ada's turn that handled your message (${k.deliveryId}) was stopped before it finished (DSH stopped before the turn finished)`,
        ),
      },
    ])
    await second.dispose()
    const third = await on(home)
    await third.ctx.botDelivery.ready
    await quiesce(third)
    expect(await repliesInMain(third)).toHaveLength(1)
  })
})

describe('room reports through the outbox', () => {
  it("a group's report for one post is recorded once and reaches the poster's chat once, however often it is asked for", async () => {
    const host = await on(newHome())
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const group = await host.ctx.botRooms.createGroup(user, { name: 'Desk', members: ['Main', 'Ada'], admin: 'Ada' })
    const report = { groupId: group.id, to: ada.id, postId: 'post-fixed-1', body: 'Main: all done', chain: { hop: 1 } }
    const a = await host.ctx.botDelivery.report(report)
    const b = await host.ctx.botDelivery.report(report)
    await quiesce(host)
    expect(b.delivery.id).toBe(a.delivery.id)
    expect(host.ctx.botDelivery.log().filter((d) => d.kind === 'report')).toEqual([
      expect.objectContaining({ id: a.delivery.id, from: group.id, to: ada.id, replyTo: 'post-fixed-1', status: 'delivered' }),
    ])
    const reports = userMessages(await host.ctx.botRoster.agentOf(ada.id)).filter((m) => readSourceOf(m.source, 'room-report'))
    expect(reports.map((m) => [m.text, readSourceOf(m.source, 'room-report')?.deliveryId])).toEqual([
      ['[Group "Desk" — replies to your post]\nMain: all done', a.delivery.id],
    ])
  })
})
