import { fileURLToPath } from 'node:url'
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { userTextsSinceLastAssistant } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { killedAtMarker } from '../../support/kill-point.ts'
import { tempDir } from '../../support/temp-dir.ts'

const CHILD = fileURLToPath(new URL('./fixtures/room-child.ts', import.meta.url))
const track = disposedAfterEach()

interface KillPoint {
  groupId: string
  ids: Record<string, string>
  roomSessionId: string
  roomInbox: number
  memberInbox?: number
  posts: number
}

const killedAtKillPoint = (home: string, mode: 'queued' | 'cut' | 'stale' | 'report') => killedAtMarker<KillPoint>(CHILD, [home, mode])

async function restart(home: string): Promise<DshHost> {
  const host = track(
    await startTeamHost(
      {
        mock: { fallback: { text: 'ok' } },
        ada: { fallback: { text: 'Ada answers' } },
        bob: { fallback: { text: 'Bob answers' } },
        cy: { fallback: { text: 'Cy answers' } },
      },
      { home },
    ),
  )
  await host.ctx.botRooms.ready
  return host
}

/** Wait until every agent is idle with nothing queued (recovery's work is event-driven). */
async function quiet(host: DshHost): Promise<void> {
  for (let calm = 0; calm < 3; ) {
    await Promise.all(host.ctx.agents.list().map((a) => a.whenIdle()))
    await new Promise((r) => setImmediate(r))
    calm = host.ctx.agents.list().some((a) => a.status !== 'idle' || a.inbox.hasPending) ? 0 : calm + 1
  }
}

const turnsOf = (host: DshHost, model: string) =>
  host.adapter.model
    .loopRequests()
    .filter((r) => r.model === model)
    .map((r) => userTextsSinceLastAssistant(r).join('\n'))

describe('rooms recover after a crash', () => {
  it('SIGKILL mid-round with a post queued: the cut round resumes at the speaking member, the queued post is re-driven, every post once', async () => {
    const home = tempDir('bot-rooms-crash-')
    const k = await killedAtKillPoint(home, 'queued')
    expect(k).toMatchObject({ roomInbox: 1, posts: 2 }) // "first" and Ada's answer are in the post log

    const host = await restart(home)
    expect(host.ctx.botRooms.recovered).toEqual({ redriven: 1, resumed: 0, dropped: 0 })
    await quiet(host)
    // Ada already answered "first" before the crash: she speaks only for "second".
    expect(turnsOf(host, 'ada')).toHaveLength(1)
    expect(turnsOf(host, 'ada')[0]).toContain('User: second PLANT-2')
    expect(turnsOf(host, 'ada')[0]).not.toContain('PLANT-1')
    // Bob's cut turn runs again (shown "first" and Ada's answer), then Cy; then the second round.
    expect(turnsOf(host, 'bob')).toHaveLength(2)
    expect(turnsOf(host, 'bob')[0]).toContain('User: first PLANT-1\nAda: Ada answers')
    expect(turnsOf(host, 'cy')).toHaveLength(2)
    const posts = await host.ctx.botRooms.transcript(k.groupId)
    expect(posts.map((p) => [p.from, p.text])).toEqual([
      ['user', 'first PLANT-1'],
      [k.ids.Ada, 'Ada answers'],
      [k.ids.Bob, 'Bob answers'],
      [k.ids.Cy, 'Cy answers'],
      ['user', 'second PLANT-2'],
      [k.ids.Ada, 'Ada answers'],
      [k.ids.Bob, 'Bob answers'],
      [k.ids.Cy, 'Cy answers'],
    ])
    expect(posts.map((p) => p.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    // The queued post ran under its own message id: it is in the room's log once.
    const room = host.ctx.agents.get(SessionId(k.roomSessionId))!
    const second = room.session.events.filter((e) => e.type === 'user/message' && JSON.stringify(e.data).includes('second PLANT-2'))
    expect(second).toHaveLength(1)
    expect(host.ctx.botRooms.rounds().map((r) => [r.resumed ?? false, r.turns.map((t) => t.outcome)])).toEqual([
      [true, ['posted', 'posted', 'posted']],
      [false, ['posted', 'posted', 'posted']],
    ])
    await host.dispose()

    // A further start finds nothing left to do.
    const again = await restart(home)
    expect(again.ctx.botRooms.recovered).toEqual({ redriven: 0, resumed: 0, dropped: 0 })
    expect(again.adapter.model.loopRequests()).toEqual([])
  })

  it('SIGKILL mid-round with nothing queued: the room is woken and finishes the cut round', async () => {
    const home = tempDir('bot-rooms-crash-')
    const k = await killedAtKillPoint(home, 'cut')
    expect(k).toMatchObject({ roomInbox: 0, posts: 2 })
    const host = await restart(home)
    expect(host.ctx.botRooms.recovered).toEqual({ redriven: 0, resumed: 1, dropped: 0 })
    await quiet(host)
    expect(turnsOf(host, 'ada')).toEqual([])
    expect(turnsOf(host, 'bob')).toHaveLength(1)
    expect(turnsOf(host, 'cy')).toHaveLength(1)
    const posts = await host.ctx.botRooms.transcript(k.groupId)
    expect(posts.map((p) => p.from)).toEqual(['user', k.ids.Ada, k.ids.Bob, k.ids.Cy])
    const room = host.ctx.agents.get(SessionId(k.roomSessionId))!
    const text = room.session.events
      .filter((e) => e.type === 'assistant/message')
      .map((e) => JSON.stringify(e.data))
      .at(-1)!
    expect(text).toContain('**Ada:** Ada answers')
    expect(text).toContain('**Cy:** Cy answers')
  })

  it('SIGKILL with a post queued in the room and a room turn queued in a member Session: the post is re-driven, the stale turn dropped, the member answers once', async () => {
    const home = tempDir('bot-rooms-crash-')
    const k = await killedAtKillPoint(home, 'stale')
    expect(k).toMatchObject({ roomInbox: 1, memberInbox: 1 })
    const host = await restart(home)
    expect(host.ctx.botRooms.recovered).toEqual({ redriven: 1, resumed: 0, dropped: 1 })
    await quiet(host)
    const ada = turnsOf(host, 'ada')
    expect(ada).toHaveLength(1)
    expect(ada[0]).toContain('User: @Ada queued PLANT-3')
    expect(ada[0]).not.toContain('STALE-TURN')
    expect((await host.ctx.botRooms.transcript(k.groupId)).map((p) => [p.from, p.text])).toEqual([
      ['user', '@Ada queued PLANT-3'],
      [k.ids.Ada, 'Ada answers'],
    ])
  })

  it("SIGKILL mid-round of a Bot's post that asked for the replies: the round finished after the restart reports to the poster once, and a further start reports nothing again", async () => {
    const home = tempDir('bot-rooms-crash-')
    const k = await killedAtKillPoint(home, 'report')
    const reports = async (host: DshHost) => {
      const ada = await host.ctx.botRoster.agentOf(k.ids.Ada!)
      return ada.session.events.filter((e: any) => e.type === 'user/message' && (e.data.message ?? e.data).source?.type === 'room-report')
    }
    const host = await restart(home)
    await quiet(host)
    await host.ctx.botDelivery.settled()
    await quiet(host)
    // Bob's cut turn was the round's first, so the round runs again from its start (nobody had spoken).
    expect(host.ctx.botRooms.rounds().map((r) => [r.turns.map((t) => t.outcome), r.report])).toEqual([[['posted', 'posted'], { ok: true }]])
    const sent = await reports(host)
    expect(sent).toHaveLength(1)
    expect(JSON.stringify(sent[0]!.data)).toContain('Bob: Bob answers')
    expect(
      host.ctx.botDelivery
        .log()
        .filter((d) => d.kind === 'report')
        .map((d) => [d.from, d.to, d.status]),
    ).toEqual([[k.groupId, k.ids.Ada, 'delivered']])
    await host.dispose()

    const again = await restart(home)
    await quiet(again)
    expect(await reports(again)).toHaveLength(1)
    expect(again.ctx.botDelivery.log().filter((d) => d.kind === 'report')).toHaveLength(1)
  })
})
