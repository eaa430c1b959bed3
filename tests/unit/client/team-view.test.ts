// The team view the sidebar draws (pure): status per Bot, order, live entries only, and the
// problems the person must see.
import { describe, expect, it } from 'vitest'
import { emptyState, type Bot, type TeamState } from '../../../src/store/index.ts'
import { BOT_STATUSES, botStatus, deliveryLog, EARLIER_PARTS_MAX, teamProblems, teamView, type BotStatus } from '../../../src/web/team-view.ts'

function bot(id: string, name: string, extra: Partial<Bot> = {}): Bot {
  return {
    id,
    name,
    role: '',
    instructions: '',
    avatar: { kind: 'shape', shape: 'circle' },
    colour: '#1971c2',
    permissionPreset: 'default',
    pinned: false,
    hidden: false,
    createdBy: 'user',
    createdAt: '2026-01-01T00:00:00.000Z',
    main: false,
    sessionParts: [{ sessionId: `s-${id}`, startedAt: '2026-01-01T00:00:00.000Z' }],
    acceptsDelegatedWork: false,
    ...extra,
  } as Bot
}

function state(): TeamState {
  const s = emptyState()
  s.bots = {
    'bot-1': bot('bot-1', 'Zed', { main: true }),
    'bot-2': bot('bot-2', 'Ada'),
    'bot-3': bot('bot-3', 'Bea', { pinned: true }),
    'bot-4': bot('bot-4', 'Gone', { deleted: { at: '2026-01-02T00:00:00.000Z', by: 'user' } }),
  }
  s.deliveries = [
    { id: 'd-1', from: 'bot-1', to: 'bot-2', kind: 'message', body: 'x', hop: 1, replyTo: null, createdAt: '2026-01-01T00:00:00.000Z', status: 'pending' },
    { id: 'd-2', from: 'bot-1', to: 'bot-2', kind: 'message', body: 'y', hop: 1, replyTo: null, createdAt: '2026-01-01T00:00:00.000Z', status: 'pending' },
    { id: 'd-3', from: 'bot-1', to: 'bot-3', kind: 'message', body: 'z', hop: 1, replyTo: null, createdAt: '2026-01-01T00:00:00.000Z', status: 'delivered' },
  ] as TeamState['deliveries']
  return s
}

const store = { mode: 'writer', message: '', lockLost: false, revision: 3, reason: null }

describe('teamView', () => {
  it("lists a Bot's ended parts newest first (at most EARLIER_PARTS_MAX), not its current part, and none for a one-part Bot", () => {
    const s = state()
    const parts = Array.from({ length: EARLIER_PARTS_MAX + 3 }, (_, i) => ({
      sessionId: `s-ada-${i + 1}`,
      part: i + 1,
      startedAt: '2026-01-01T00:00:00.000Z',
      ...(i < EARLIER_PARTS_MAX + 2 ? { endedAt: '2026-01-02T00:00:00.000Z', endReason: 'handoff: the steward chose a handoff' } : {}),
    }))
    s.bots['bot-2'] = bot('bot-2', 'Ada', { sessionParts: parts })
    const view = teamView({ state: s, store, running: () => false })
    const ada = view.bots.find((b) => b.name === 'Ada')!
    expect(ada.chatSessionId).toBe(`s-ada-${EARLIER_PARTS_MAX + 3}`)
    expect(ada.earlierParts!.map((p) => p.part)).toEqual(Array.from({ length: EARLIER_PARTS_MAX }, (_, i) => EARLIER_PARTS_MAX + 2 - i))
    expect(ada.earlierParts![0]).toEqual({
      part: EARLIER_PARTS_MAX + 2,
      sessionId: `s-ada-${EARLIER_PARTS_MAX + 2}`,
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-02T00:00:00.000Z',
      endReason: 'handoff: the steward chose a handoff',
    })
    expect(view.bots.find((b) => b.name === 'Zed')!.earlierParts).toBeUndefined()
  })

  it('lists live Bots, Main first, then pinned, then by name, with status and queued count', () => {
    const view = teamView({ state: state(), store, running: (id) => id === 's-bot-3' })
    expect(view.bots.map((b) => [b.name, b.status, b.queued])).toEqual([
      ['Zed', 'idle', 0],
      ['Bea', 'working', 0],
      ['Ada', 'queued', 2],
    ])
    expect(view.bots[0]).toMatchObject({ main: true, chatSessionId: 's-bot-1', shape: 'circle', colour: '#1971c2' })
    expect(view.problems).toEqual([])
  })

  it('shows every Bot as read-only or follower when this process cannot change the team', () => {
    const busy = { running: true, queued: 3, awaitingApproval: true, stopped: true, held: true }
    expect(botStatus({ mode: 'read-only', ...busy })).toBe('read-only')
    expect(botStatus({ mode: 'follower', ...busy })).toBe('follower')
    expect(botStatus({ mode: 'writer', running: false, queued: 0, awaitingApproval: false, stopped: false, held: false })).toBe('idle')
  })

  it('botStatus over every combination of facts: the first matching status in BOT_STATUSES order wins', () => {
    const seen = new Set<string>()
    let cases = 0
    for (const mode of ['writer', 'read-only', 'follower'])
      for (const running of [false, true])
        for (const queued of [0, 1, 7])
          for (const awaitingApproval of [false, true])
            for (const stopped of [false, true])
              for (const held of [false, true]) {
                const facts = { mode, running, queued, awaitingApproval, stopped, held }
                // the rules, spelled out independently of the implementation's order
                const holds: Record<BotStatus, boolean> = {
                  'read-only': mode === 'read-only',
                  follower: mode === 'follower',
                  approval: awaitingApproval,
                  working: running,
                  stopped: stopped || held,
                  queued: queued > 0,
                  idle: true,
                }
                const want = BOT_STATUSES.find((st) => holds[st])!
                expect({ facts, status: botStatus(facts) }).toEqual({ facts, status: want })
                seen.add(want)
                cases++
              }
    expect(cases).toBe(3 * 2 * 3 * 2 * 2 * 2)
    expect([...seen].sort()).toEqual([...BOT_STATUSES].sort()) // every status is reachable
  })

  it('teamView: waiting for approval beats working; a stopped or held Bot shows stopped until a turn runs; facts absent mean none', () => {
    const s = state()
    const view = (facts: Partial<Parameters<typeof teamView>[0]>) =>
      Object.fromEntries(teamView({ state: s, store, running: () => false, ...facts }).bots.map((b) => [b.name, b.status]))
    expect(view({})).toEqual({ Zed: 'idle', Bea: 'idle', Ada: 'queued' })
    expect(view({ running: (id) => id === 's-bot-3', awaitingApproval: (id) => id === 'bot-3' })).toEqual({ Zed: 'idle', Bea: 'approval', Ada: 'queued' })
    expect(view({ stopped: (sid) => sid === 's-bot-1' })).toEqual({ Zed: 'stopped', Bea: 'idle', Ada: 'queued' })
    expect(view({ stopped: () => true, running: (id) => id === 's-bot-1' })).toEqual({ Zed: 'working', Bea: 'stopped', Ada: 'stopped' })
    expect(view({ held: (id) => (id === 'bot-2' ? 'the daily cap is reached' : undefined) })).toEqual({ Zed: 'idle', Bea: 'idle', Ada: 'stopped' })
  })

  it('names the problems the person must see, once each', () => {
    expect(teamProblems({ store: { ...store, mode: 'read-only', message: 'The team file is newer than this plugin.', reason: 'newer-version' } })).toEqual([
      { kind: 'read-only', text: 'The team file is newer than this plugin.' },
    ])
    expect(teamProblems({ store: { ...store, lockLost: true } }).map((p) => p.kind)).toEqual(['lock-lost'])
    expect(teamProblems({ store, archive: { driver: 'unavailable', problem: { message: 'better-sqlite3 is missing: run X' } } })).toEqual([
      { kind: 'sqlite', text: 'better-sqlite3 is missing: run X' },
    ])
  })
})

describe('deliveryLog', () => {
  it('lists exchanges newest first with names, filtered by Bot and bounded', () => {
    const s = state()
    expect(deliveryLog(s).map((r) => [r.id, r.fromName, r.toName, r.kind, r.hop, r.status])).toEqual([
      ['d-3', 'Zed', 'Bea', 'message', 1, 'delivered'],
      ['d-2', 'Zed', 'Ada', 'message', 1, 'pending'],
      ['d-1', 'Zed', 'Ada', 'message', 1, 'pending'],
    ])
    expect(deliveryLog(s, { bot: 'bot-3' }).map((r) => r.id)).toEqual(['d-3'])
    expect(deliveryLog(s, { limit: 1 }).map((r) => r.id)).toEqual(['d-3'])
    expect(deliveryLog(s, { limit: 100_000 })).toHaveLength(3)
  })
})
