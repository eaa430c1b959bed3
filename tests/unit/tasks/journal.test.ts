// The journal's records as data: a transition is encoded as new tasks whole and changed tasks by
// their changed fields; replaying checks what it applies, never half applies a record, and gives
// the writer's check and a reader's full check the same tasks; a whole-ledger pass too large for one
// record is cut into records within the limits, each task's change with its intents.
import { describe, expect, it } from 'vitest'
import { TaskBoard } from '../../../src/tasks/board.ts'
import { encodeChanges, recordParts, replay, splitLines } from '../../../src/tasks/journal.ts'
import { claim, entryOf, moved, type Result } from '../../../src/tasks/policy.ts'
import { at, claimAs, planOne, run } from '../../support/task-builders.ts'
import { nextStep } from '../../support/task-workload.ts'

describe('encoding a transition', () => {
  it('a new task is put whole; a changed one sets only its changed fields and logs the history entry', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    const r = claimAs(board, id, at(5))
    if (!r.ok) throw new Error(r.refusal)
    const [op] = encodeChanges(board, r.changes)
    expect(op).toEqual({
      id,
      set: { status: 'working', attempts: r.changes[0]!.task.attempts, lease: r.changes[0]!.task.lease, sessionId: `s-${id}`, updatedAt: at(5) },
      log: r.changes[0]!.entry,
    })
    expect(encodeChanges(new TaskBoard(), r.changes)).toEqual([{ put: r.changes[0]!.task }])
  })
})

describe('replaying a record', () => {
  it('the writer’s check refuses a field no task may hold, naming it, and the board is not changed', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    const before = JSON.stringify(board.get(id))
    expect(replay(board, { seq: 2, at: at(), ops: [{ id, set: { status: 'sideways' } }] }, 'changes')).toEqual({
      ok: false,
      problem: 'gives an invalid task (status: Invalid option: expected one of "blocked"|"ready"|"working"|"review"|"done"|"failed"|"cancelled")',
    })
    expect(replay(board, { seq: 2, at: at(), ops: [{ id, set: { history: [] } }] }, 'changes')).toEqual({
      ok: false,
      problem: 'sets history, which cannot be set',
    })
    expect(replay(board, { seq: 2, at: at(), ops: [{ id: 'task-9', set: {} }] }, 'changes')).toEqual({
      ok: false,
      problem: 'changes task-9, which does not exist',
    })
    expect(JSON.stringify(board.get(id))).toBe(before)
  })

  it('one bad op fails the whole record: nothing of it is applied', () => {
    const board = new TaskBoard()
    const a = planOne(board)
    const b = planOne(board)
    const r = replay(board, {
      seq: 3,
      at: at(),
      ops: [
        { id: a, set: { title: 'fine' } },
        { id: b, set: { title: '' } },
      ],
    })
    expect(r.ok).toBe(false)
  })

  it('over a long workload the writer’s check and a reader’s full check give the same tasks', () => {
    const writer = new TaskBoard()
    const reader = new TaskBoard()
    for (let seq = 1; seq <= 300; seq++) {
      const step = nextStep(writer, at(seq))!
      const result = step.run(writer)
      if (!result.ok) throw new Error(result.refusal)
      const record = JSON.parse(JSON.stringify({ seq, at: at(seq), ops: encodeChanges(writer, result.changes) }))
      const live = replay(writer, record, 'changes')
      const disk = replay(reader, record, 'all')
      if (!live.ok || !disk.ok) throw new Error('a record was refused')
      expect(JSON.stringify(disk.tasks)).toBe(JSON.stringify(live.tasks))
      for (const t of live.tasks) writer.put(t)
      for (const t of disk.tasks) reader.put(t)
    }
    expect(JSON.stringify([...reader.all()])).toBe(JSON.stringify([...writer.all()]))
    expect(writer.size).toBeGreaterThan(30)
  })

  it('a line split keeps the bytes after the last line break apart (a torn append)', () => {
    const { lines, rest } = splitLines(Buffer.from('{"a":1}\n{"b":2}\n{"c"'))
    expect(lines.map(String)).toEqual(['{"a":1}', '{"b":2}'])
    expect(rest).toBe(4)
    expect(splitLines(Buffer.from('')).lines).toEqual([])
  })
})

describe('a claim race inside one board', () => {
  it('two claims of one task: the first wins, the second is refused by the board it sees', () => {
    const board = new TaskBoard()
    const id = planOne(board, { assignee: undefined })
    run(board, claim(board, id, { now: at(), actor: { kind: 'system' }, botId: 'bot-2', sessionId: 's-a', leaseMs: 60_000 }))
    const second = claim(board, id, { now: at(), actor: { kind: 'system' }, botId: 'bot-3', sessionId: 's-b', leaseMs: 60_000 })
    expect(second.ok).toBe(false)
  })
})

describe('reserved fields', () => {
  it('the worktree fields a task carries are kept through transitions, encoding and a reader’s replay', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    const worktree = { project: 'app', branch: 'h/parser', check: { ok: false, at: at(), summary: 'lint' }, merge: 'pending' as const }
    board.put({ ...board.get(id)!, worktree })
    const r = claimAs(board, id, at(1))
    if (!r.ok) throw new Error(r.refusal)
    expect(r.changes[0]!.task.worktree).toEqual(worktree)
    const reader = new TaskBoard([JSON.parse(JSON.stringify(board.get(id)))])
    const replayed = replay(reader, JSON.parse(JSON.stringify({ seq: 2, at: at(1), ops: encodeChanges(board, r.changes) })))
    expect(replayed.ok && replayed.tasks[0]!.worktree).toEqual(worktree)
  })
})

describe('a whole-ledger pass in parts', () => {
  /** A pass over `n` planned tasks: each cancelled with a long reason, told to its Bot, and its pending intent `p<n>` dropped. */
  function pass(n: number): { board: TaskBoard; result: Extract<Result, { ok: true }>; taskOf: (id: string) => string | undefined } {
    const board = new TaskBoard()
    for (let i = 0; i < n; i++) planOne(board)
    const now = at(9)
    const result: Extract<Result, { ok: true }> = { ok: true, changes: [], intents: [], drop: [] }
    for (const task of board.all()) {
      const entry = entryOf({ now, actor: { kind: 'system' } }, 'cancelled', task.status, 'cancelled', 'r'.repeat(400))
      result.changes.push(moved(task, { status: 'cancelled' }, entry, now))
      result.intents.push({ kind: 'tell', taskId: task.id, botId: 'bot-2', text: `${task.id} ${'t'.repeat(300)}` })
      result.drop!.push(`p${task.id}`)
    }
    return { board, result, taskOf: (id) => id.slice(1) }
  }
  const recordBytes = (board: TaskBoard, part: Extract<Result, { ok: true }>) =>
    Buffer.byteLength(JSON.stringify({ seq: 1, at: at(), ops: encodeChanges(board, part.changes), add: part.intents, done: part.drop }))

  it('returns a pass that fits one record as it is', () => {
    const { board, result, taskOf } = pass(5)
    const parts = recordParts(board, result, taskOf)
    expect(parts).toHaveLength(1)
    expect(parts[0]).toBe(result)
  })

  it('cuts a larger pass into records within the byte and item limits, each task with its intents and drops, losing and repeating nothing', () => {
    const { board, result, taskOf } = pass(60)
    const limits = { bytes: 8_000, items: 7 }
    const parts = recordParts(board, result, taskOf, limits)
    expect(parts.length).toBeGreaterThan(8)
    for (const part of parts) {
      expect(recordBytes(board, part)).toBeLessThanOrEqual(limits.bytes + 100)
      expect(Math.max(part.changes.length, part.intents.length, part.drop?.length ?? 0)).toBeLessThanOrEqual(limits.items)
      const ids = new Set(part.changes.map((c) => c.task.id))
      expect(part.intents.every((i) => ids.has(i.taskId)) && (part.drop ?? []).every((d) => ids.has(taskOf(d)!))).toBe(true)
    }
    expect(parts.flatMap((p) => p.changes)).toEqual(result.changes)
    expect(parts.flatMap((p) => p.intents)).toEqual(result.intents)
    expect(parts.flatMap((p) => p.drop ?? [])).toEqual(result.drop)
  })
})
