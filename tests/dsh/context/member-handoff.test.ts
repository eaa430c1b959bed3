// Group member Sessions get the context lifecycle of own chats, per member per group, on a real
// in-process DSH with the scripted model and a small window: past its check line a member's
// Session moves to a fresh one between its turns (one save: memberSessions and memberParts), the
// old one stays the member's, the package is answered without a model call, and the next round's
// member request starts with it while the group keeps working.
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { HANDOFF_ACK } from '../../../src/context/note.ts'
import { readSource } from '../../../src/core/sources.ts'
import { userMessages } from './helpers.ts'
import type { Rule, Script, ScriptMap } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, startTeamHost, type DshHost, type TeamHostOptions } from '../../support/dsh-host.ts'
import { startCompactingTeamHost } from '../context-compaction/helpers.ts'
import { say, user } from '../rooms/helpers.ts'

const track = disposedAfterEach()
const WINDOW = 8_000
const filler = (n: number, tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(n)}`
const assistantTexts = (events: readonly any[]) => events.filter((e) => e.type === 'assistant/message').map((e) => (e.data.message ?? e.data).content[0]?.text)

/** Ada on a small window (her own scripted model), Bob on a large one; both in group Dev. */
async function team(
  ada: Partial<Script> = {},
  bobReply: Rule = { text: 'Bob agrees' },
  start: (script: ScriptMap, options: TeamHostOptions) => Promise<DshHost> = startTeamHost,
) {
  const host = track(
    await start(
      {
        mock: { fallback: { text: 'ok' } },
        ada: { contextWindow: WINDOW, fallback: { text: 'Ada replies' }, steward: { text: '{"action":"handoff","reason":"done"}' }, ...ada },
        bob: { fallback: bobReply },
      },
      { config: { rooms: { limits: { turnTimeoutMs: 30_000 } } } },
    ),
  )
  const adaId = (await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })).id
  const bobId = (await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })).id
  const group = await host.ctx.botRooms.createGroup(user, { name: 'Dev', members: ['Ada', 'Bob'], mode: 'everyone' })
  return { host, adaId, bobId, groupId: group.id }
}

const partsOf = (host: DshHost, groupId: string, botId: string) => host.ctx.botRooms.group(groupId)!.memberParts?.[botId] ?? []

/** Rounds in the group until Ada's member Session moved to part `n`; returns the rounds run. */
async function roundsUntilPart(host: DshHost, groupId: string, botId: string, n: number, max = 40): Promise<number> {
  let i = 0
  for (; i < max && partsOf(host, groupId, botId).length < n; i++) {
    await say(host, 'Dev', filler(100, `round ${i}`))
    await host.ctx.botContext.settled()
  }
  return i
}

describe('context steward: group member Sessions', () => {
  it("a member past its check line moves to a fresh member Session between rounds; the package opens it with zero model calls and starts the next round's request; the group keeps working", async () => {
    const { host, adaId, bobId, groupId } = await team()
    const first = host.ctx.botRooms.group('Dev')?.memberSessions[adaId]
    expect(first).toBeUndefined()
    const rounds = await roundsUntilPart(host, groupId, adaId, 2)
    expect(rounds).toBeGreaterThan(1)
    expect(rounds).toBeLessThan(40)

    const group = host.ctx.botRooms.group('Dev')!
    const parts = partsOf(host, groupId, adaId)
    expect(parts).toHaveLength(2)
    expect(parts[0]).toMatchObject({ part: 1, endReason: expect.stringMatching(/^handoff: the steward chose a handoff/) })
    expect(parts[0]!.endedAt).toBeDefined()
    expect(parts[1]).toMatchObject({ part: 2, opening: 'sent', note: `context/${adaId}/group-${groupId}-part-2.md` })
    expect(group.memberSessions[adaId]).toBe(parts[1]!.sessionId)
    // Bob (a large window) keeps his one Session.
    expect(group.memberParts?.[bobId]).toBeUndefined()
    // The steward ran once, as a side call, for Ada's member Session.
    const steward = host.adapter.requests.filter((r) => r.label === 'steward')
    expect(steward).toHaveLength(1)
    expect(steward[0]!.purpose).toBe('compaction')
    expect(steward[0]!.sessionId === undefined || steward[0]!.sessionId === parts[0]!.sessionId).toBe(true)
    // Both parts stay Ada's in this group (the old one closed, its log kept).
    expect(host.ctx.botRoster.ownerOf(parts[0]!.sessionId)).toEqual({ kind: 'member', botId: adaId, groupId })
    expect(host.ctx.botRoster.ownerOf(parts[1]!.sessionId)).toEqual({ kind: 'member', botId: adaId, groupId })
    expect(host.ctx.botRoster.sessionsOf(adaId)).toEqual(expect.arrayContaining([parts[0]!.sessionId, parts[1]!.sessionId]))

    // The new Session opened with the package, answered without a model call.
    const second = host.ctx.agents.get(SessionId(parts[1]!.sessionId))!
    const opening = userMessages(second.session.events)[0] as any
    expect(readSource(opening.source)).toMatchObject({ type: 'handoff', part: 2, resume: false })
    const text = opening.content[0].text as string
    expect(text).toMatch(/^\[Handoff · part 2\]/)
    expect(text).toContain('## Handoff note\n## Goals')
    // The latest round's turn prompt, word for word.
    expect(text).toContain(
      filler(100, `round ${rounds - 1}`)
        .trim()
        .slice(0, 200),
    )
    expect(assistantTexts(second.session.events)).toEqual([HANDOFF_ACK])
    expect(host.adapter.requests.filter((r) => r.sessionId === parts[1]!.sessionId)).toHaveLength(0)

    // The next round: Ada answers in her new Session, the request starts with the package.
    await say(host, 'Dev', 'after the move: status please')
    const req = host.adapter.model
      .loopRequests()
      .filter((r) => r.model === 'ada')
      .at(-1)!
    expect(req.sessionId).toBe(parts[1]!.sessionId)
    expect(req.messages[0]!.text).toMatch(/^\[Handoff · part 2\]/)
    expect(JSON.stringify(req.messages.at(-1))).toContain('after the move: status please')
    expect(
      host.ctx.botRooms
        .rounds()
        .at(-1)!
        .turns.map((t) => [t.botId, t.outcome]),
    ).toEqual([
      [adaId, 'posted'],
      [bobId, 'posted'],
    ])
  })

  it("the steward's checkpoint condenses a member Session in place (DSH's compaction machinery): the member keeps its Session, the planted post word for word and anchored", async () => {
    const work = { text: `Done. ${'I read the module, changed the parser and ran the tests again. '.repeat(30)}` }
    const { host, adaId, groupId } = await team(
      { fallback: work, steward: { text: '{"action":"checkpoint","reason":"work under way"}' } },
      { text: 'Bob agrees' },
      startCompactingTeamHost,
    )
    const planted = 'PLANT-5: the staging database is db-stage-5.internal, port 6543.'
    await say(host, 'Dev', planted)
    await host.ctx.botContext.settled()
    const sid = host.ctx.botRooms.group('Dev')!.memberSessions[adaId]!
    const agent = host.ctx.agents.get(SessionId(sid))!
    const summaries = () => agent.session.events.filter((e: any) => e.type === 'compaction/summary')
    for (let i = 0; i < 20 && summaries().length === 0; i++) {
      await say(host, 'Dev', `round ${i}: keep going with the parser port`)
      await host.ctx.botContext.settled()
    }
    expect(summaries()).toHaveLength(1)
    expect(host.ctx.botContext.stats.checkpoints).toBe(1)
    // In place: the same member Session, no new part.
    expect(host.ctx.botRooms.group('Dev')!.memberSessions[adaId]).toBe(sid)
    expect(partsOf(host, groupId, adaId)).toEqual([])
    const replaced = agent.session.events.filter((e: any) => e.type === 'user/message' && e.surfaceOp).at(-1) as any
    const text = (replaced.data.content as { text?: string }[]).map((b) => b.text ?? '').join('')
    expect(text).toContain('[Checkpoint 1]')
    expect(text).toMatch(/\[#\d+ · [^\]]+\][^\n]*\n[\s\S]*PLANT-5: the staging database is db-stage-5\.internal, port 6543\./)
    // The group keeps working on the condensed Session.
    await say(host, 'Dev', 'after the checkpoint')
    const req = host.adapter.model
      .loopRequests()
      .filter((r) => r.model === 'ada')
      .at(-1)!
    expect(req.sessionId).toBe(sid)
    expect(req.messages.map((m) => m.text).join('\n')).toContain('PLANT-5: the staging database is db-stage-5.internal, port 6543.')
  })
})
