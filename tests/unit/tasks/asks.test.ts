// The inbox's transitions (pure): a question or an approval becomes a task for the person; it is
// settled once (answer, allow, deny, expiry), each telling the asking Session; the grant is used
// once; the v5 questions are taken once; a call's grant key ignores only free text.
import { describe, expect, it } from 'vitest'
import { callKey } from '../../../src/core/call-key.ts'
import { ask, expiredAsks, importQuestions, nextDeadline, settle, useGrant } from '../../../src/tasks/asks.ts'
import { TaskBoard } from '../../../src/tasks/board.ts'
import { plan } from '../../../src/tasks/policy.ts'
import { intentSchema, taskSchema } from '../../../src/tasks/record.ts'
import { USER, at, planOne, run } from '../../support/task-builders.ts'

const CHAIN = { hop: 2, budget: 'budget:eve#1', mode: 'read-only' as const }
const ctx = (extra = {}) => ({ now: at(), botId: 'bot-2', sessionId: 's-ada', chain: CHAIN, ...extra })
const approval = (path: string) => ({ tool: 'bash', args: JSON.stringify({ path }), key: callKey('bash', { path }), callId: `call-${path}` })

describe('ask', () => {
  it('a question is a ready task for the person with the asking chain, in the inbox; bad input creates nothing', () => {
    const board = new TaskBoard()
    const r = run(board, ask(board, { question: 'Which licence?\nMIT or Apache?', choices: ['MIT', 'Apache-2.0'], deadlineHours: 2 }, ctx()))
    const t = board.get(r.id)!
    expect(taskSchema.safeParse(t).success).toBe(true)
    expect(t).toMatchObject({ title: 'Which licence?', status: 'ready', assignee: { kind: 'user' }, creator: { kind: 'bot', botId: 'bot-2' }, chain: CHAIN })
    expect(t.ask!.deadline).toBe(at(2 * 3_600_000))
    expect(board.inbox().map((x) => x.id)).toEqual([r.id])
    for (const bad of [
      {},
      { question: '' },
      { question: 'x'.repeat(2001) },
      { question: 'q', choices: Array(11).fill('c') },
      { question: 'q', deadlineHours: 0 },
      { question: 'q', extra: 1 },
    ])
      expect(ask(board, bad, ctx())).toMatchObject({ ok: false, refusal: expect.stringMatching(/^The question was not accepted: .*Nothing was asked\.$/) })
    expect(board.size).toBe(1)
  })

  it('at most 5 approvals of one Bot wait; another Bot still may ask', () => {
    const board = new TaskBoard()
    for (let i = 0; i < 5; i++) run(board, ask(board, { question: 'why' }, ctx({ approval: approval(`p${i}`) })))
    expect(ask(board, { question: 'why' }, ctx({ approval: approval('p5') }))).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/already has 5 approvals waiting/),
    })
    expect(ask(board, { question: 'why' }, ctx({ botId: 'bot-3', approval: approval('p5') })).ok).toBe(true)
  })
})

describe('a bounded inbox', () => {
  it('one question per turn of a Session; another turn or another Session of the Bot may ask', () => {
    const board = new TaskBoard()
    const first = run(board, ask(board, { question: 'one?' }, ctx({ turn: 3 })))
    expect(ask(board, { question: 'two?' }, ctx({ turn: 3 }))).toMatchObject({
      ok: false,
      refusal: `This turn already asked the user (${first.id}); a Bot asks at most one question per turn. Nothing new was asked.`,
    })
    // answered meanwhile: still this turn's one question
    run(board, settle(board, first.id, { now: at(1), actor: USER, verdict: 'answered', text: 'yes' }))
    expect(ask(board, { question: 'two?' }, ctx({ turn: 3 })).ok).toBe(false)
    // an approval in that turn is not a question
    expect(ask(board, { question: 'why' }, ctx({ turn: 3, approval: approval('x') })).ok).toBe(true)
    expect(ask(board, { question: 'two?' }, ctx({ turn: 4 })).ok).toBe(true)
    expect(ask(board, { question: 'two?' }, ctx({ turn: 4, sessionId: 's-ada-2' })).ok).toBe(true)
  })

  it("a turn's second question is refused even when the Bot asked from another of its Sessions in between", () => {
    const board = new TaskBoard()
    const first = run(board, ask(board, { question: 'one?' }, ctx({ turn: 3 })))
    // the same Bot's task Session asks meanwhile: the Bot's newest question is now that one
    run(board, ask(board, { question: 'from the task?' }, ctx({ turn: 1, sessionId: 's-ada-task' })))
    expect(ask(board, { question: 'two?' }, ctx({ turn: 3 }))).toMatchObject({
      ok: false,
      refusal: `This turn already asked the user (${first.id}); a Bot asks at most one question per turn. Nothing new was asked.`,
    })
    expect(ask(board, { question: 'two?' }, ctx({ turn: 4 })).ok).toBe(true)
  })

  it('at most 5 questions of one Bot wait, from all its Sessions', () => {
    const board = new TaskBoard()
    for (let i = 0; i < 5; i++) run(board, ask(board, { question: `q${i}` }, ctx({ turn: i, sessionId: `s-${i % 2}` })))
    expect(ask(board, { question: 'q5' }, ctx({ turn: 9, sessionId: 's-9' }))).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/^This Bot already has 5 questions waiting for the user \(from all its chats\)/),
    })
    expect(ask(board, { question: 'q5' }, ctx({ botId: 'bot-3' })).ok).toBe(true)
  })

  it("Bots' asks stop 50 below the open-task limit; the person's plans do not count them and go on to the limit", () => {
    const board = new TaskBoard()
    for (let i = 0; i < 448; i++) planOne(board, { assignee: undefined })
    run(board, ask(board, { question: 'last?' }, ctx()))
    run(board, ask(board, { question: 'why' }, ctx({ botId: 'bot-3', approval: approval('y') })))
    expect(board.openCount).toBe(450)
    expect(ask(board, { question: 'more?' }, ctx({ botId: 'bot-4' }))).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/may bring it to at most 450/),
    })
    const person = (n: number) =>
      plan(
        board,
        { tasks: Array.from({ length: n }, (_, i) => ({ title: `t${i}`, brief: 'b' })) },
        { now: at(), creator: USER, chain: { hop: 0 }, bots: new Set() },
      )
    run(board, person(50))
    expect(board.openCount).toBe(500)
    // a Bot's plan counts every open task; the person's leaves the two asks out
    expect(
      plan(board, { tasks: [{ title: 't', brief: 'b' }] }, { now: at(), creator: { kind: 'bot', botId: 'bot-1' }, chain: { hop: 1 }, bots: new Set() }).ok,
    ).toBe(false)
    run(board, person(2))
    expect(person(1)).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/^The team has 500 open tasks \(the Bots' questions and approvals not counted\)/),
    })
  })
})

describe('settle', () => {
  it('an answer closes the question once and tells the asking Session; a choice out of range or a second answer changes nothing', () => {
    const board = new TaskBoard()
    const { id } = run(board, ask(board, { question: 'Ship?', choices: ['yes', 'no'] }, ctx()))
    expect(settle(board, id, { now: at(1), actor: USER, verdict: 'answered', choice: 2 })).toMatchObject({ ok: false })
    expect(settle(board, id, { now: at(1), actor: USER, verdict: 'allowed' })).toMatchObject({ ok: false, refusal: expect.stringMatching(/is a question/) })
    expect(settle(board, id, { now: at(1), actor: USER, verdict: 'answered' })).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/needs text or one of the choices/),
    })
    const r = run(board, settle(board, id, { now: at(1), actor: USER, verdict: 'answered', choice: 1 }))
    expect(board.get(id)).toMatchObject({ status: 'done', ask: { answer: { verdict: 'answered', choice: 1, text: '"no"' } } })
    expect(r.intents).toEqual([
      { kind: 'answer', taskId: id, botId: 'bot-2', sessionId: 's-ada', text: expect.stringMatching(/^The user answered your question .*: "no"$/) },
    ])
    expect(intentSchema.safeParse({ ...r.intents[0], id: '1.0', at: at(1) }).success).toBe(true)
    expect(settle(board, id, { now: at(2), actor: USER, verdict: 'answered', text: 'again' })).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/is done/),
    })
    expect(board.inbox()).toEqual([])
  })

  it('an allow records an unused grant and an answer intent that carries it; the grant is used once', () => {
    const board = new TaskBoard()
    const { id } = run(board, ask(board, { question: 'write outside' }, ctx({ approval: approval('a.txt') })))
    const r = run(board, settle(board, id, { now: at(1), actor: USER, verdict: 'allowed' }))
    expect(r.intents[0]).toMatchObject({
      kind: 'answer',
      grant: true,
      text: expect.stringMatching(/^The user allowed bash \(call call-a.txt\) with \{"path":"a.txt"\}/),
    })
    expect(board.get(id)!.ask!.grant).toEqual({ used: false })
    run(board, useGrant(board, id, { now: at(2), callId: 'call-9' }))
    expect(board.get(id)!.ask!.grant).toEqual({ used: true, usedAt: at(2), callId: 'call-9' })
    expect(useGrant(board, id, { now: at(3), callId: 'call-10' })).toMatchObject({ ok: false, refusal: expect.stringMatching(/used already/) })
  })

  it('a deny tells the Bot with the reason; a plain task cannot be settled', () => {
    const board = new TaskBoard()
    const { id } = run(board, ask(board, { question: 'why' }, ctx({ approval: approval('b.txt') })))
    const r = run(board, settle(board, id, { now: at(1), actor: USER, verdict: 'denied', reason: 'not that file' }))
    expect(board.get(id)).toMatchObject({ status: 'done', ask: { answer: { verdict: 'denied', text: 'not that file' } } })
    expect(r.intents[0]).not.toHaveProperty('grant')
    const work = planOne(board)
    expect(settle(board, work, { now: at(1), actor: USER, verdict: 'answered', text: 'x' })).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/is not a question or an approval/),
    })
  })

  it('the deadline: the next one is known, and an expired question is cancelled with the Bot told', () => {
    const board = new TaskBoard()
    const { id } = run(board, ask(board, { question: 'q', deadlineHours: 1 }, ctx()))
    run(board, ask(board, { question: 'later' }, ctx()))
    expect(nextDeadline(board)).toBe(Date.parse(at(3_600_000)))
    expect(expiredAsks(board, at(3_599_999))).toEqual([])
    expect(expiredAsks(board, at(3_600_000)).map((t) => t.id)).toEqual([id])
    const r = run(board, settle(board, id, { now: at(3_600_000), actor: { kind: 'system' }, verdict: 'expired' }))
    expect(board.get(id)).toMatchObject({ status: 'cancelled', ask: { answer: { verdict: 'expired' } } })
    expect(r.intents[0]!.kind === 'answer' && r.intents[0]!.text).toMatch(/got no answer by its deadline/)
  })
})

describe('importQuestions (the v5 file)', () => {
  const questions = [
    { id: 'question-1', botId: 'bot-2', question: 'Which?', options: ['a', 'b'], askedAt: at(), status: 'open' as const },
    { id: 'question-2', botId: 'bot-3', question: 'Done?', askedAt: at(), status: 'answered' as const, answer: 'Yes' },
    { id: 'question-3', botId: 'bot-gone', question: 'Lost?', askedAt: at(), status: 'open' as const },
  ]
  it('takes each once: open ones wait, answered ones are done, a gone Bot’s is cancelled; nobody is told', () => {
    const board = new TaskBoard()
    const sessionOf = (b: string) => (b === 'bot-gone' ? undefined : `s-${b}`)
    const r = run(board, importQuestions(board, questions, { now: at(), sessionOf }))
    expect(r.intents).toEqual([])
    expect([...board.all()].map((t) => [t.status, t.ask!.imported, t.ask!.sessionId, t.ask!.choices])).toEqual([
      ['ready', 'question-1', 's-bot-2', ['a', 'b']],
      ['done', 'question-2', 's-bot-3', undefined],
      ['cancelled', 'question-3', 'none', undefined],
    ])
    for (const t of board.all()) expect(taskSchema.safeParse(t).success).toBe(true)
    expect(importQuestions(board, questions, { now: at(1), sessionOf })).toEqual({ ok: true, changes: [], intents: [] })
  })
})

describe('importQuestions within the inbox bounds', () => {
  const open = (n: number, botId = 'bot-2') =>
    Array.from({ length: n }, (_, i) => ({ id: `question-${botId}-${i + 1}`, botId, question: `Q${i + 1}?`, askedAt: at(), status: 'open' as const }))
  const sessionOf = (b: string) => `s-${b}`

  it('at most 5 of a Bot wait, counting those already waiting; the rest come back cancelled saying why, another Bot keeps its own 5', () => {
    const board = new TaskBoard()
    run(board, ask(board, { question: 'asked already?' }, ctx()))
    run(board, importQuestions(board, [...open(7), ...open(2, 'bot-3')], { now: at(), sessionOf }))
    const imported = [...board.all()].filter((t) => t.ask?.imported)
    expect(imported.map((t) => [t.ask!.botId, t.status])).toEqual([
      ...Array(4).fill(['bot-2', 'ready']),
      ...Array(3).fill(['bot-2', 'cancelled']),
      ['bot-3', 'ready'],
      ['bot-3', 'ready'],
    ])
    expect(imported[4]!.history.at(-1)!.reason).toMatch(/; cancelled: its Bot already has 5 questions waiting$/)
    expect(board.inbox().filter((t) => t.ask?.botId === 'bot-2')).toHaveLength(5)
  })

  it("never takes the team's open tasks past the Bots' share (450)", () => {
    const board = new TaskBoard()
    for (let i = 0; i < 448; i++) planOne(board, { assignee: undefined })
    run(board, importQuestions(board, open(3), { now: at(), sessionOf }))
    expect([...board.all()].filter((t) => t.ask?.imported).map((t) => t.status)).toEqual(['ready', 'ready', 'cancelled'])
    expect(board.openCount).toBe(450)
  })
})

describe('callKey', () => {
  it('ignores only the top-level free text and the key order', () => {
    const k = callKey('bash', { command: 'ls', sandbox_permissions: 'require_escalated' })
    expect(callKey('bash', { sandbox_permissions: 'require_escalated', command: 'ls', justification: 'to see', description: 'list' })).toBe(k)
    expect(callKey('bash', { command: 'ls -a', sandbox_permissions: 'require_escalated' })).not.toBe(k)
    expect(callKey('shell', { command: 'ls', sandbox_permissions: 'require_escalated' })).not.toBe(k)
    expect(callKey('bash', { command: 'ls', sandbox_permissions: 'require_escalated', opts: { description: 'x' } })).not.toBe(k)
  })
})
