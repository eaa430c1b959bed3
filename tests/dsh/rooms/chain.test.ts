// The chain through rooms (issue 9 §3): a Bot's post carries its turn's chain; each member turn
// carries {hop: post.hop + 1, budget: post.budget, mode: lower of post.mode and the member's own};
// the report carries the round's highest hop + 1 and the budget. A user's post: hop 0, no budget,
// no mode (members run at their own).
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { readSource } from '../../../src/core/sources.ts'
import { disposedAfterEach, type DshHost } from '../../support/dsh-host.ts'
import { roomOf, say, settle, team, user } from './helpers.ts'
import { from } from '../delivery/helpers.ts'

const track = disposedAfterEach()

/** The plugin sources of the user/messages in a Session's log. */
function sources(host: DshHost, sessionId: string) {
  const agent = host.ctx.agents.get(SessionId(sessionId))!
  return agent.session.events
    .filter((e) => e.type === 'user/message')
    .map((e) => {
      const data = e.data as { message?: { source?: unknown }; source?: unknown }
      return readSource(data.message?.source ?? data.source)
    })
    .filter((s) => s !== undefined)
}

describe('chain through rooms', () => {
  it("a Bot's post carries its chain; member turns go one hop deeper at the lower mode; the report carries the highest hop + 1 and the budget", async () => {
    const host = track(await team({ bob: { text: 'Bob reviewed' }, cy: { text: 'Cy reviewed' } }))
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob', permissionPreset: 'read-only' })
    const cy = await roster.create(user, { name: 'Cy', model: 'mock/cy', permissionPreset: 'danger-full-access' })
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob', 'Cy'], admin: 'Ada' })
    const chain = { hop: 2, budget: 'budget-9', mode: 'workspace-write' } as const
    await host.ctx.botRooms.post(from(host, ada.id), 'G', '@Bob @Cy please review', { report: true, chain })
    await settle(host, 'G')
    const adaChat = await roster.agentOf(ada.id)
    await adaChat.whenIdle()

    const g = host.ctx.botRooms.group('G')!
    expect(sources(host, g.roomSessionId!).filter((s) => s.type === 'room-post')).toMatchObject([
      { fromBot: ada.id, hop: 2, budget: 'budget-9', mode: 'workspace-write', report: true },
    ])
    const turn = (botId: string) => sources(host, g.memberSessions[botId]!).filter((s) => s.type === 'room-turn')
    expect(turn(bob.id)).toEqual([expect.objectContaining({ hop: 3, budget: 'budget-9', mode: 'read-only' })])
    expect(turn(cy.id)).toEqual([expect.objectContaining({ hop: 3, budget: 'budget-9', mode: 'workspace-write' })])
    const report = sources(host, String(adaChat.id)).filter((s) => s.type === 'room-report')
    expect(report).toEqual([expect.objectContaining({ groupId: g.id, hop: 4, budget: 'budget-9', mode: 'workspace-write' })])
    expect((await host.ctx.botRooms.transcript(g.id)).map((p) => p.hop)).toEqual([2, 3, 3])

    // The user's post: hop 0, no mode (members run at their own authority), and a work budget of
    // its own, keyed by the post, opened in team state by the first member turn it caused.
    await say(host, 'G', '@Cy and you?')
    const userTurn = turn(cy.id).at(-1)!
    expect(userTurn).toMatchObject({ hop: 1, budget: expect.stringMatching(new RegExp(`^budget:${g.id}#`)) })
    expect(userTurn).not.toHaveProperty('mode')
    expect(host.ctx.botStore.state.budgets.find((b) => b.id === userTurn.budget)).toMatchObject({ origin: g.id, used: 1, limit: 40 })
    expect(roomOf(host, 'G').status).toBe('idle')
  })
})
