// Usage rows from Session events, spending policy and the ledger file (pure parts + SQLite).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadSqlite } from '../../../src/core/sqlite.ts'
import { capsReached, costOf, DayTotals } from '../../../src/usage/caps.ts'
import { LedgerDb } from '../../../src/usage/ledger-db.ts'
import { LogDeriver, rowOf, rowsOfLog, timeKeys, tokensOf, type RowOwner } from '../../../src/usage/rows.ts'

const own: RowOwner = { bot: 'bot-2', group: null, part: 3, task: null, loop: 'turn' }
const T = new Date(2026, 0, 2, 9, 30).getTime()
const ev = (seq: number, type: string, data: unknown) => ({ seq, type, time: T + seq, data })

describe('rows from Session events', () => {
  it('one row per usage chunk (the latest request/context is its route) and per compaction with usage; other events none', () => {
    const rows = rowsOfLog(
      's1',
      [
        ev(0, 'request/context', { provider: 'deepseek-official', model: 'deepseek-v4-flash' }),
        ev(1, 'assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'hi' } }),
        ev(2, 'assistant/chunk', {
          turn: 1,
          step: 1,
          chunk: { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 90, reasoningTokens: 2 } },
        }),
        ev(3, 'assistant/message', { turn: 1, step: 1, usage: { inputTokens: 10, outputTokens: 5 } }),
        ev(4, 'request/context', { provider: 'p2', model: 'm2' }),
        ev(5, 'assistant/chunk', { turn: 2, step: 1, chunk: { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } } }),
        ev(6, 'compaction/summary', { provider: 'p3', model: 'm3', usage: { inputTokens: 400, outputTokens: 40 } }),
        ev(7, 'compaction/summary', { provider: 'p3', model: 'm3' }),
      ],
      own,
    )
    expect(rows.map((r) => [r.key, r.provider, r.model, r.purpose, r.input, r.cached, r.output, r.bot, r.part])).toEqual([
      ['s1#2', 'deepseek-official', 'deepseek-v4-flash', 'turn', 10, 90, 5, 'bot-2', 3],
      ['s1#5', 'p2', 'm2', 'turn', 1, 0, 1, 'bot-2', 3],
      ['s1#6', 'p3', 'm3', 'compaction', 400, 0, 40, 'bot-2', 3],
    ])
    expect(rows[0]).toMatchObject({ day: '2026-01-02', hour: '2026-01-02T09', session: 's1' })
  })

  it('a live deriver seeded with the route of a Session already running; no owner, no row', () => {
    const d = new LogDeriver('s2', { provider: 'a', model: 'b' })
    const usage = ev(9, 'assistant/chunk', { chunk: { type: 'usage', usage: { inputTokens: 3, outputTokens: 4 } } })
    expect(d.push(usage, () => undefined)).toBeUndefined()
    expect(d.push(usage, () => ({ bot: 'x', group: 'g', part: null, task: null, loop: 'room-turn' }))).toMatchObject({
      provider: 'a',
      model: 'b',
      purpose: 'room-turn',
      group: 'g',
    })
  })

  it('token counts from a provider are whole, non-negative and bounded; anything else counts 0', () => {
    expect(tokensOf({ inputTokens: -5, outputTokens: 'x', cacheReadTokens: 2.7 })).toEqual({ input: 0, cached: 2, output: 0 })
    expect(tokensOf(null)).toEqual({ input: 0, cached: 0, output: 0 })
    expect(tokensOf({ inputTokens: 1e20 }).input).toBe(1e12)
  })

  it('day and hour are local calendar keys', () => {
    expect(timeKeys(new Date(2026, 11, 31, 23, 59).getTime())).toEqual({ day: '2026-12-31', hour: '2026-12-31T23' })
  })
})

describe('spending policy', () => {
  const prices = { 'p/m': { input: 1, cached: 0.1, output: 4 } }
  const row = (bot: string | null, input: number, output = 0, model = 'm') => ({ bot, provider: 'p', model, input, cached: 0, output })

  it("money is per million tokens at the route's price; no price, no money", () => {
    expect(costOf(prices, 'p/m', { input: 2_000_000, cached: 1_000_000, output: 500_000 })).toBeCloseTo(2 + 0.1 + 2, 9)
    expect(costOf(prices, 'p/other', { input: 1, cached: 1, output: 1 })).toBeUndefined()
    expect(costOf(undefined, 'p/m', { input: 1, cached: 1, output: 1 })).toBeUndefined()
  })

  it("a Bot's cap (its own over eachBot) and the team's are reached at the cap, by tokens or by money", () => {
    const t = new DayTotals('2026-01-02')
    t.add(row('a', 600))
    t.add(row('b', 300, 0, 'unpriced'))
    t.add(row(null, 50))
    expect(t.spent(prices)).toEqual({ tokens: 950, money: 650 / 1e6 })
    expect(capsReached(t, { caps: { eachBot: { tokens: 600 } } }, 'a').map((h) => h.scope)).toEqual(['bot:a'])
    expect(capsReached(t, { caps: { eachBot: { tokens: 600 } } }, 'b')).toEqual([])
    expect(capsReached(t, { caps: { eachBot: { tokens: 600 }, bots: { a: { tokens: 601 } } } }, 'a')).toEqual([])
    expect(capsReached(t, { caps: { team: { tokens: 950 } } }, 'b').map((h) => [h.scope, h.what])).toEqual([['team', 'tokens']])
    expect(capsReached(t, { prices, caps: { eachBot: { money: 0.0006 } } }, 'a').map((h) => h.what)).toEqual(['money'])
    expect(capsReached(t, { prices, caps: { eachBot: { money: 0.0006 } } }, 'b')).toEqual([]) // unpriced: no money counted
    expect(capsReached(t, undefined, 'a')).toEqual([])
  })
})

describe('ledger file', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  const open = () => {
    const load = loadSqlite({ prefer: 'node:sqlite' })
    if (!load.ok) throw new Error(load.problem.message)
    const dir = mkdtempSync(join(tmpdir(), 'usage-'))
    dirs.push(dir)
    return new LedgerDb(load.driver.open(join(dir, 'usage.sqlite')))
  }
  const r = (key: string, day: number, bot: string, over: Partial<Omit<ReturnType<typeof rowOf>, 'day' | 'hour'>> = {}) =>
    rowOf({
      key,
      time: new Date(2026, 0, day, 10).getTime(),
      bot,
      group: null,
      part: 1,
      session: 's',
      task: null,
      provider: 'p',
      model: 'm',
      purpose: 'turn',
      input: 10,
      cached: 1,
      output: 2,
      ...over,
    })

  it('inserts a row once per key, and views group and filter by day range, Bot and group', () => {
    const db = open()
    db.insert([r('a', 1, 'x'), r('b', 2, 'x'), r('c', 2, 'y', { group: 'g', model: 'm2' })])
    db.insert([r('a', 1, 'x', { input: 999 })])
    expect(db.count()).toBe(3)
    expect(db.view('day').map((c) => [c.key, c.route, c.requests, c.input])).toEqual([
      ['2026-01-01', 'p/m', 1, 10],
      ['2026-01-02', 'p/m', 1, 10],
      ['2026-01-02', 'p/m2', 1, 10],
    ])
    expect(db.view('bot', { from: '2026-01-02', to: '2026-01-02' }).map((c) => [c.key, c.requests])).toEqual([
      ['x', 1],
      ['y', 1],
    ])
    expect(db.view('group', { group: 'g' }).map((c) => c.key)).toEqual(['g'])
    expect(db.daySums('2026-01-02')).toEqual(expect.arrayContaining([{ bot: 'x', provider: 'p', model: 'm', input: 10, cached: 1, output: 2 }]))
    db.close()
  })

  it('has a task column: rows of task Sessions are viewed and filtered by task, others have none', () => {
    const db = open()
    db.insert([r('a', 1, 'x'), r('b', 1, 'x', { task: 'task-3', purpose: 'task-turn' }), r('c', 1, 'y', { task: 'task-3', purpose: 'task-turn', output: 5 })])
    expect(db.view('task').map((c) => [c.key, c.requests, c.output])).toEqual([
      [null, 1, 2],
      ['task-3', 2, 7],
    ])
    expect(db.view('bot', { task: 'task-3' }).map((c) => [c.key, c.requests])).toEqual([
      ['x', 1],
      ['y', 1],
    ])
    db.close()
  })

  it('opens a ledger of schema 1 (no task column): its rows are kept, worked on no task, and new rows name theirs', () => {
    const load = loadSqlite({ prefer: 'node:sqlite' })
    if (!load.ok) throw new Error(load.problem.message)
    const dir = mkdtempSync(join(tmpdir(), 'usage-v1-'))
    dirs.push(dir)
    const file = join(dir, 'usage.sqlite')
    const old = load.driver.open(file)
    old.exec(`CREATE TABLE usage (key TEXT PRIMARY KEY, time INTEGER NOT NULL, day TEXT NOT NULL, hour TEXT NOT NULL,
      bot TEXT, grp TEXT, part INTEGER, session TEXT, provider TEXT NOT NULL, model TEXT NOT NULL,
      purpose TEXT NOT NULL, input INTEGER NOT NULL, cached INTEGER NOT NULL, output INTEGER NOT NULL)`)
    old.exec("INSERT INTO usage VALUES ('old', 1, '2026-01-01', '2026-01-01T10', 'x', NULL, 1, 's', 'p', 'm', 'turn', 4, 0, 1)")
    old.exec('PRAGMA user_version = 1')
    old.close()
    const db = new LedgerDb(load.driver.open(file))
    db.insert([r('new', 1, 'x', { task: 'task-1', purpose: 'task-turn' })])
    expect(db.view('task').map((c) => [c.key, c.requests])).toEqual([
      [null, 1],
      ['task-1', 1],
    ])
    db.close()
  })
})
