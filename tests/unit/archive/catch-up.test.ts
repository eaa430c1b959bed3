// Catch-up against scripted logs (live and cold) on a real in-memory index: incremental by seq,
// idempotent, and a rewritten log or a gap is read again, never skipped.
import { describe, expect, it } from 'vitest'
import { CatchUp, type ArchiveSources } from '../../../src/archive/catch-up.ts'
import type { LogEvent } from '../../../src/core/log-lines.ts'
import { ArchiveIndex } from '../../../src/archive/index-db.ts'
import { readOwnChat } from '../../../src/archive/reader.ts'
import { loadSqlite } from '../../../src/core/sqlite.ts'

const user = (seq: number, text: string, time = 1_000 * seq): LogEvent => ({
  type: 'user/message',
  seq,
  time,
  data: { message: { content: [{ type: 'text', text }], source: { kind: 'user' } } },
})

function setup(logs: Record<string, LogEvent[]>, liveSids: string[] = []) {
  const load = loadSqlite()
  if (!load.ok) throw new Error(load.problem.message)
  const index = ArchiveIndex.open(load.driver, ':memory:', true)!
  const reads: [string, number][] = []
  const sources: ArchiveSources = {
    place: (sid) => (sid in logs ? { partition: 'bot:b1', part: Object.keys(logs).indexOf(sid) + 1, room: false } : undefined),
    all: () => Object.keys(logs),
    live: (sid) =>
      liveSids.includes(sid)
        ? {
            get seq() {
              return logs[sid]!.length
            },
            at: (seq) => logs[sid]![seq],
          }
        : undefined,
    readFrom: async (sid, from) => {
      reads.push([sid, from])
      return logs[sid]!.filter((e) => e.seq >= from)
    },
  }
  const catchUp = new CatchUp(index, sources, { sliceEvents: 3, searchBudgetMs: 1_000 })
  const parts = Object.keys(logs).map((sid, i) => ({ sid, part: i + 1 }))
  const search = (query: string) => readOwnChat(index, { botId: 'b1', args: { query }, parts })
  return { index, catchUp, reads, search }
}

describe('catch-up', () => {
  it('reads a live log incrementally by seq, in slices, and never indexes a line twice', async () => {
    const log = [user(0, 'alpha one'), user(1, 'alpha two'), user(2, 'beta'), user(3, 'alpha three'), user(4, 'gamma')]
    const { index, catchUp, search } = setup({ s1: log }, ['s1'])
    catchUp.request('s1')
    await catchUp.idle()
    expect(index.stats().lines).toBe(5)
    log.push(user(5, 'alpha four'))
    expect(catchUp.behind('s1')).toBe(true)
    expect(await catchUp.ensure(['s1'])).toBe(true)
    catchUp.request('s1')
    await catchUp.idle()
    expect(index.stats().lines).toBe(6)
    expect(search('alpha')).toMatch(/^4 line\(s\)/)
  })

  it('notices a rewritten live log (the event at the mark changed) and reads it again from seq 0', async () => {
    const log = [user(0, 'old words'), user(1, 'old more')]
    const { catchUp, search } = setup({ s1: log }, ['s1'])
    await catchUp.ensure(['s1'])
    log.splice(0, 2, user(0, 'new words', 5), user(1, 'new more', 6), user(2, 'new tail', 7))
    expect(await catchUp.ensure(['s1'])).toBe(true)
    expect(search('old')).toMatch(/^Nothing found/)
    expect(search('new')).toMatch(/^3 line\(s\)/)
    expect(catchUp.problems.join('\n')).toMatch(/s1: the log no longer holds #1 as indexed; read again from the start/)
  })

  it('reads cold logs through the reader from the mark, and reads a shorter (rewritten) cold log again', async () => {
    const logs = { s1: [user(0, 'cold one'), user(1, 'cold two')] }
    const { catchUp, reads, search } = setup(logs)
    expect(await catchUp.ensure(['s1'])).toBe(true)
    expect(search('cold')).toMatch(/^2 line\(s\)/)
    expect(catchUp.behind('s1')).toBe(false) // checked once since opening: no I/O per search
    logs.s1 = [user(0, 'fresh only', 99)]
    const again = setup(logs) // a new process, same index content is not shared: rebuild path
    expect(await again.catchUp.ensure(['s1'])).toBe(true)
    expect(again.search('fresh')).toMatch(/^1 line\(s\)/)
    expect(reads).toEqual([['s1', 0]])
  })

  it('treats a gap in a log as a rewrite: read again once, then indexed around the hole', async () => {
    const logs = { s1: [user(0, 'one'), user(1, 'two'), user(3, 'four after a gap')] }
    const { catchUp, search } = setup(logs)
    await catchUp.ensure(['s1'])
    expect(catchUp.problems.join('\n')).toMatch(/expected seq 2, the log has 3/)
    expect(catchUp.problems).toHaveLength(1)
    expect(search('one')).toMatch(/^1 line/)
    expect(search('four')).toMatch(/^1 line\(s\) of your own chat for "four", best match first:\n\[part 1 #3 /)
    expect(catchUp.behind('s1')).toBe(false)
  })

  it('with no budget, answers at once and leaves the work to the background', async () => {
    const { catchUp, index } = setup({ s1: [user(0, 'a1'), user(1, 'a2'), user(2, 'a3'), user(3, 'a4')] }, ['s1'])
    expect(await catchUp.ensure(['s1'], 0)).toBe(false)
    expect(catchUp.pending).toBeGreaterThan(0)
    await catchUp.idle()
    expect(index.stats().lines).toBe(4)
    expect(await catchUp.ensure(['s1'], 0)).toBe(true)
  })
})
