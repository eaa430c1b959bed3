// A member handoff cut by SIGKILL: a child process running real DSH in-process is killed at one
// deterministic point of Ada's member handoff in group Dev — while the note is being written
// (nothing of the new member Session is recorded), or right after team state recorded the new
// Session with its package pending. A restart on the same home has exactly one current member
// Session for Ada, the package (if any) enters it answered without a model call, and the group
// keeps working.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { expectOpeningAnswered, tempHomes } from './helpers.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { killedAtMarker } from '../../support/kill-point.ts'
import { say } from '../rooms/helpers.ts'
import { from } from '../delivery/helpers.ts'

const CHILD = fileURLToPath(new URL('./fixtures/member-handoff-child.ts', import.meta.url))
const track = disposedAfterEach()

const home = tempHomes('bot-member-crash-')
/** The text of a member Session's log on disk, as team state names it (empty: no log). */
function memberLog(h: string, bot: string, group: string): string {
  const state = JSON.parse(readFileSync(join(h, 'bot', 'state.json'), 'utf8'))
  const botId = Object.values<any>(state.bots).find((b) => b.name === bot).id
  const sessionId = Object.values<any>(state.groups).find((g) => g.name === group).memberSessions[botId]
  const root = join(h, 'sessions')
  const log = readdirSync(root)
    .map((d) => join(root, d, sessionId, 'session.jsonl'))
    .find((f) => existsSync(f))
  return log ? readFileSync(log, 'utf8') : ''
}
const restart = async (h: string) =>
  track(
    await startTeamHost(
      {
        mock: { fallback: { text: 'ok' } },
        ada: { contextWindow: 8_000, fallback: { text: 'Ada after restart' } },
        bob: { fallback: { text: 'Bob after restart' } },
      },
      { home: h, config: { rooms: { limits: { turnTimeoutMs: 30_000 } } } },
    ),
  )

describe('a member handoff cut by SIGKILL', () => {
  it('killed while the note is written: after restart Ada keeps her one member Session, which answers the next round', async () => {
    const h = home()
    await killedAtMarker(CHILD, [h, 'note'])
    // Killed before DSH's batched write could run: the part being handed off is on disk all the same.
    expect(memberLog(h, 'Ada', 'Dev')).toContain('PLANT-9 lives at /srv/plant/nine.txt')
    const host = await restart(h)
    const ada = host.ctx.botRoster.find('Ada')!.id
    const group = host.ctx.botRooms.group('Dev')!
    expect(group.memberParts?.[ada]).toBeUndefined()
    const only = group.memberSessions[ada]!
    await say(host, 'Dev', 'still there?')
    const req = host.adapter.model
      .loopRequests()
      .filter((r) => r.model === 'ada')
      .at(-1)!
    expect(req.sessionId).toBe(only)
    expect(JSON.stringify(req.messages)).toContain('PLANT-9 lives at /srv/plant/nine.txt')
  })

  it('killed after state recorded part 2 with its package pending: after restart exactly one current member Session, its package first, answered without a model call, and the next round runs there', async () => {
    const h = home()
    expect(await killedAtMarker(CHILD, [h, 'opening'])).toEqual({ mode: 'opening', parts: 2 })
    const host = await restart(h)
    const ada = host.ctx.botRoster.find('Ada')!.id
    await host.ctx.botContext.settled()
    const dev = () => host.ctx.botRooms.group('Dev')!
    await expect.poll(() => dev().memberParts?.[ada]?.[1]?.opening).toBe('sent')
    const parts = dev().memberParts![ada]!
    expect(parts.map((p) => [p.part, p.endedAt === undefined])).toEqual([
      [1, false],
      [2, true],
    ])
    expect(dev().memberSessions[ada]).toBe(parts[1]!.sessionId)
    await expectOpeningAnswered(host, parts[1]!.sessionId, 2)
    await say(host, 'Dev', 'after the restart')
    const req = host.adapter.model
      .loopRequests()
      .filter((r) => r.model === 'ada')
      .at(-1)!
    expect(req.sessionId).toBe(parts[1]!.sessionId)
    expect(req.messages[0]!.text).toMatch(/^\[Handoff · part 2\]/)
    // What left the member's window stays in the room's history.
    expect(await host.ctx.botRooms.readChat(from(host, ada), 'Dev', 200)).toContain('PLANT-9 lives at /srv/plant/nine.txt')
  })
})
