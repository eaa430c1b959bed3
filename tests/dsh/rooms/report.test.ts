// The report back to a poster is not fire-and-forget: when it cannot be sent, the room shows why
// and the round record says it failed (it used to be swallowed by `.catch(() => undefined)`).
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { bots, roomLog, settle, team, user } from './helpers.ts'
import { from } from '../delivery/helpers.ts'

const track = disposedAfterEach()

describe('report back', () => {
  it('a report that cannot be sent (the poster was deleted during the round) is shown in the room and recorded as failed', async () => {
    const host = track(await team({ bob: { text: 'Bob answers late', delayMs: 400 } }))
    const ids = await bots(host, ['Ada', 'Bob'])
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada' })
    await host.ctx.botRooms.post(from(host, ids.Ada!), 'G', '@Bob what is the status?', { report: true })
    const bobSid = () => host.ctx.botRooms.group('G')!.memberSessions[ids.Bob!]
    while (!bobSid() || host.ctx.agents.get(SessionId(bobSid()!))?.status !== 'running') await new Promise((r) => setTimeout(r, 5))
    await host.ctx.botRoster.delete(user, 'Ada', 'gone mid-round')
    await settle(host, 'G')
    const round = host.ctx.botRooms.rounds().at(-1)!
    expect(round.turns.map((t) => t.outcome)).toEqual(['posted'])
    expect(round.report).toMatchObject({ ok: false, reason: expect.stringMatching(/.+/) })
    expect(roomLog(host, 'G')).toMatch(/_The replies could not be sent back to Ada: .+_/)
  })

  it('a report that is sent is recorded as sent', async () => {
    const host = track(await team({ bob: { text: 'Bob answers' } }))
    const ids = await bots(host, ['Ada', 'Bob'])
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada' })
    await host.ctx.botRooms.post(from(host, ids.Ada!), 'G', '@Bob status?', { report: true })
    await settle(host, 'G')
    expect(host.ctx.botRooms.rounds().at(-1)!.report).toEqual({ ok: true })
  })
})
