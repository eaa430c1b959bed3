/**
 * The origin table: every kind of message that can open a Bot's turn → the (mode, budget, hop) the
 * turn runs with, written here independently of `chain.ts` (its table is at `OriginKind`). One row
 * per source this plugin writes (the `SOURCES` list must name every source type), the person's
 * message, DSH's own and other plugins' notices, a turn that claimed nothing, and the two origins
 * the task ledger and the inbox will add.
 */
import { describe, expect, it } from 'vitest'
import {
  draw,
  drawOn,
  NO_BUDGET,
  openerOf,
  scheduleChain,
  turnOrigin,
  turnTerms,
  type Chain,
  type Opener,
  type OriginKind,
  type SandboxMode,
} from '../../src/core/chain.ts'
import {
  bootstrapSource,
  deliverySource,
  handoffSource,
  roomNoticeSource,
  roomOpenSource,
  roomPostSource,
  roomReportSource,
  roomTurnSource,
  scheduleSource,
  roleNoticeSource,
  networkNoticeSource,
  secretNoteSource,
  taskNoticeSource,
  taskReportSource,
  answerSource,
  taskSource,
  usageNoticeSource,
  type TeamSourceType,
} from '../../src/core/sources.ts'
import { chainOfLog, personBudgetId } from '../../src/roster/turns.ts'

const CHAIN: Chain = { hop: 3, budget: 'budget:eve#2', mode: 'read-only' }
const group = { groupId: 'group-1', groupName: 'Crew' }
const OWN: SandboxMode = 'danger-full-access'
const PERSON_BUDGET = 'budget:session-ada#7'
/** What the Session carried before the turn (its last chain), when one is known. */
const LAST: Chain = { hop: 2, budget: 'budget:bob#1', mode: 'workspace-write' }

type Expect = 'person' | 'message' | 'inherit' | 'own-task'

/** One sample per source the plugin writes, with the kind of turn it opens. */
const SOURCES: Record<TeamSourceType, { source: unknown; kind: OriginKind; expect: Expect }> = {
  message: { source: deliverySource({ id: 'delivery-1', from: 'bot-2', kind: 'message' }, 'Eve', CHAIN), kind: 'bot', expect: 'message' },
  interrupt: { source: deliverySource({ id: 'delivery-2', from: 'bot-2', kind: 'interrupt' }, 'Eve', CHAIN), kind: 'bot', expect: 'message' },
  reply: { source: deliverySource({ id: 'delivery-3', from: 'bot-2', kind: 'reply' }, 'Eve', CHAIN), kind: 'bot', expect: 'message' },
  stop: { source: deliverySource({ id: 'delivery-4', from: 'bot-2', kind: 'stop' }, 'Eve', CHAIN), kind: 'bot', expect: 'message' },
  'room-post': {
    source: roomPostSource({ ...group, postId: 'post-1', said: 'hi', from: { id: 'bot-2', name: 'Eve' } }, CHAIN),
    kind: 'room',
    expect: 'message',
  },
  'room-turn': { source: roomTurnSource(group, CHAIN), kind: 'room', expect: 'message' },
  'room-report': { source: roomReportSource(group, CHAIN), kind: 'room', expect: 'message' },
  schedule: { source: scheduleSource({ scheduleId: 'schedule-1', createdBy: 'bot-2' }, CHAIN), kind: 'schedule', expect: 'message' },
  handoff: { source: handoffSource(4, true, CHAIN), kind: 'handoff', expect: 'message' },
  'room-notice': { source: roomNoticeSource(group, 'Ada read her chat'), kind: 'other', expect: 'inherit' },
  'room-open': { source: roomOpenSource(group), kind: 'other', expect: 'inherit' },
  bootstrap: { source: bootstrapSource('Ada'), kind: 'other', expect: 'inherit' },
  'usage-notice': { source: usageNoticeSource('the daily cap was reached'), kind: 'other', expect: 'inherit' },
  'secret-note': { source: secretNoteSource('GH_TOKEN', 'saved'), kind: 'other', expect: 'inherit' },
  'role-notice': { source: roleNoticeSource('Team change: you are now a Main Bot.'), kind: 'other', expect: 'inherit' },
  'network-notice': { source: networkNoticeSource('Your network is now "internet".'), kind: 'other', expect: 'inherit' },
  task: { source: taskSource({ taskId: 'task-1', attempt: 1, intentId: '3.0', byPerson: false }, CHAIN), kind: 'bot', expect: 'message' },
  'person-task': {
    source: taskSource({ taskId: 'task-2', attempt: 2, intentId: '4.0', byPerson: true }, { hop: 0, budget: 'budget:task-2' }),
    kind: 'person-task',
    expect: 'own-task',
  },
  'task-report': { source: taskReportSource({ taskId: 'task-1', intentId: '5.0' }, CHAIN), kind: 'bot', expect: 'message' },
  'task-notice': { source: taskNoticeSource('task-1', 'Started task-1'), kind: 'other', expect: 'inherit' },
  answer: {
    source: answerSource({ taskId: 'task-3', intentId: '6.0', grant: { tool: 'bash', key: 'a'.repeat(64) } }, CHAIN),
    kind: 'answer',
    expect: 'message',
  },
}

/** Messages that are not ours, and ours of an older shape. */
const OTHERS: Array<{ label: string; source: unknown; kind: OriginKind; expect: Expect }> = [
  { label: "the person's message", source: { kind: 'user' }, kind: 'person', expect: 'person' },
  { label: "DSH's background-job notice", source: { kind: 'plugin', plugin: 'tool-jobs', form: 'notice' }, kind: 'other', expect: 'inherit' },
  { label: "DSH's runtime context", source: { kind: 'plugin', plugin: 'runtime-context', form: 'snapshot' }, kind: 'other', expect: 'inherit' },
  { label: "another plugin's notice", source: { kind: 'plugin', plugin: 'cron' }, kind: 'other', expect: 'inherit' },
  { label: 'a handoff written before chains rode it', source: handoffSource(2, true), kind: 'other', expect: 'inherit' },
]

/** The terms a row's turn must run with, by what it was expected to be (the independent half). */
function want(expect: Expect, last: Chain | undefined, accepts = false): { mode: SandboxMode; budget: string | undefined; hop: number } {
  if (expect === 'person') return { mode: OWN, budget: PERSON_BUDGET, hop: 0 }
  if (expect === 'message') return { mode: accepts ? OWN : 'read-only', budget: 'budget:eve#2', hop: 3 }
  // A task the person created: the assignee's own preset (the chain names no mode), the task's own budget.
  if (expect === 'own-task') return { mode: OWN, budget: 'budget:task-2', hop: 0 }
  if (!last) return { mode: accepts ? OWN : 'read-only', budget: NO_BUDGET, hop: 0 }
  return { mode: accepts ? OWN : 'workspace-write', budget: 'budget:bob#1', hop: 2 }
}

const ROWS = [...Object.entries(SOURCES).map(([type, row]) => ({ label: type, ...row })), ...OTHERS]

describe('the origin table: every way a turn can start → (mode, budget, hop)', () => {
  it('names every source type the plugin writes', () => {
    expect(Object.keys(SOURCES).sort()).toEqual(
      [
        'bootstrap',
        'handoff',
        'interrupt',
        'message',
        'reply',
        'role-notice',
        'network-notice',
        'room-notice',
        'room-open',
        'room-post',
        'room-report',
        'room-turn',
        'schedule',
        'secret-note',
        'stop',
        'usage-notice',
        'task',
        'person-task',
        'task-report',
        'task-notice',
        'answer',
      ].sort(),
    )
  })

  for (const row of ROWS) {
    for (const last of [LAST, undefined]) {
      for (const accepts of [false, true]) {
        it(`${row.label} (${last ? 'the Session has a last chain' : 'no chain known'}${accepts ? ', accepts delegated work' : ''})`, () => {
          const opener = openerOf(row.source)
          expect(opener.kind).toBe(row.kind)
          const origin = turnOrigin([opener], () => last)
          expect(origin.kind === 'person').toBe(row.expect === 'person')
          expect(turnTerms(origin, OWN, accepts, PERSON_BUDGET)).toEqual(want(row.expect, last, accepts))
        })
      }
    }
  }

  it('a turn that claimed nothing (a wake with an empty inbox, a retry) inherits like a notice', () => {
    expect(
      turnTerms(
        turnOrigin([], () => LAST),
        OWN,
        false,
        PERSON_BUDGET,
      ),
    ).toEqual(want('inherit', LAST))
    expect(
      turnTerms(
        turnOrigin([], () => undefined),
        OWN,
        false,
        PERSON_BUDGET,
      ),
    ).toEqual(want('inherit', undefined))
  })

  it("any message of the person makes it the person's turn; several chains give the deepest hop, the first budget, the lowest mode", () => {
    const person: Opener = { kind: 'person' }
    const a: Opener = { kind: 'bot', chain: { hop: 1, budget: 'budget:a', mode: 'workspace-write' } }
    const b: Opener = { kind: 'room', chain: { hop: 4, budget: 'budget:b', mode: 'read-only' } }
    expect(turnOrigin([a, person], () => LAST)).toEqual({ kind: 'person' })
    expect(turnOrigin([a, b, { kind: 'other' }], () => LAST)).toEqual({
      kind: 'chain',
      from: 'message',
      chain: { hop: 4, budget: 'budget:a', mode: 'read-only' },
    })
  })

  it("the reserved origins: a task the person created runs at the assignee's preset with a fresh budget; an answer carries the asking chain", () => {
    const task: Opener = { kind: 'person-task', chain: { hop: 0, budget: 'budget:task-9' } }
    const answer: Opener = { kind: 'answer', chain: CHAIN }
    expect(
      turnTerms(
        turnOrigin([task], () => LAST),
        OWN,
        false,
        PERSON_BUDGET,
      ),
    ).toEqual({ mode: OWN, budget: 'budget:task-9', hop: 0 })
    // a person's click on a card is never a turn the person opened
    expect(turnOrigin([answer], () => LAST).kind).toBe('chain')
    expect(
      turnTerms(
        turnOrigin([answer], () => LAST),
        OWN,
        false,
        PERSON_BUDGET,
      ),
    ).toEqual(want('message', LAST))
  })

  it('a scheduled run: the lowest of the mode it was set at and its creator now; the person set it: the mode it was set at', () => {
    expect(scheduleChain({ id: 'schedule-1', mode: 'danger-full-access' }, 3, 'read-only')).toEqual({
      hop: 0,
      budget: 'budget:schedule-1#3',
      mode: 'read-only',
    })
    expect(scheduleChain({ id: 'schedule-1', mode: 'read-only' }, 1, 'danger-full-access')).toEqual({
      hop: 0,
      budget: 'budget:schedule-1#1',
      mode: 'read-only',
    })
    expect(scheduleChain({ id: 'schedule-2' }, 1, undefined)).toEqual({ hop: 0, budget: 'budget:schedule-2#1' })
  })

  it('the budget of a turn nothing known opened draws nothing and is never opened, forced or not', () => {
    const draft = { budgets: [] }
    expect(draw(draft.budgets, NO_BUDGET)).toMatchObject({ ok: false, reason: expect.stringMatching(/cannot start work for other Bots/) })
    expect(drawOn(draft, { hop: 0, budget: NO_BUDGET }, { limit: 40, open: { origin: 'bot-1', at: 'now' }, force: true })).toMatchObject({ ok: false })
    expect(draft.budgets).toEqual([])
  })
})

describe("the Session's last chain, read from its log", () => {
  const user = (turn: number, step: number, source: unknown) => [
    { type: 'step/start', data: { turn, step } },
    { type: 'user/message', data: { source, content: [] } },
  ]
  const chainMsg = deliverySource({ id: 'delivery-1', from: 'bot-2', kind: 'message' }, 'Eve', CHAIN)

  it("is the newest turn whose first step entered the person's message or a chain; a notice in between changes nothing", () => {
    const log = [...user(1, 1, { kind: 'user' }), ...user(2, 1, chainMsg), ...user(3, 1, { kind: 'plugin', plugin: 'tool-jobs' })]
    expect(chainOfLog(log, 'session-ada')).toEqual(CHAIN)
    expect(chainOfLog(log.slice(0, 2), 'session-ada')).toEqual({ hop: 0, budget: personBudgetId('session-ada', 1) })
    expect(chainOfLog([...user(1, 1, { kind: 'plugin', plugin: 'tool-jobs' })], 'session-ada')).toBeUndefined()
  })

  it("a person's message steered into a later step of a chain turn does not make the chain the person's", () => {
    const log = [...user(1, 1, { kind: 'user' }), ...user(2, 1, chainMsg), ...user(2, 2, { kind: 'user' })]
    expect(chainOfLog(log, 'session-ada')).toEqual(CHAIN)
  })
})
