// The task store on real files: restarts rebuild the same ledger, refusals write nothing, only the
// writer writes, a follower follows (across compactions too), torn and invalid records are reported
// and skipped, compaction keeps every task, the outbox hands each intent over once and recovers,
// file modes, a newer format is read-only; an older format is upgraded by the writer before any
// compaction stamps the new one, in records within the limit, and a step that cannot be recorded
// holds every change and hand-over until it is.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { isStoreError } from '../../../src/core/store-errors.ts'
import { formatTwo } from '../../../src/tasks/formats.ts'
import { encodeChanges, JOURNAL_FILE, SNAPSHOT_FILE, TASKS_FORMAT } from '../../../src/tasks/journal.ts'
import { claim, plan } from '../../../src/tasks/policy.ts'
import type { Intent } from '../../../src/tasks/record.ts'
import { type HandOver, TaskStore, type TaskStoreOptions } from '../../../src/tasks/store.ts'
import { fixtureLedger, largeFormat1Ledger } from '../../support/format1-ledger.ts'
import { historyProblems, ledgerDigest, nextStep } from '../../support/task-workload.ts'

const CHILD = fileURLToPath(new URL('./fixtures/task-child.ts', import.meta.url))
const opened: TaskStore[] = []
const homes: string[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(opened.splice(0).map((s) => s.close()))
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true })
})

function tempTasks(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bot-tasks-'))
  homes.push(home)
  return path.join(home, 'bot', 'tasks')
}

async function open(dir: string, opts: Partial<TaskStoreOptions> = {}): Promise<TaskStore> {
  const store = await TaskStore.open({ dir, mayWrite: () => true, followMs: 20, ...opts })
  opened.push(store)
  return store
}

async function steps(store: TaskStore, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const step = nextStep(store.board, new Date().toISOString())
    if (!step) throw new Error('the workload stopped')
    const r = await store.transact(step.run)
    if (!r.ok) throw new Error(`${step.name}: ${r.refusal}`)
  }
}

const digest = (s: TaskStore) => ledgerDigest(s.board.all(), s.pending())
const journal = (dir: string) => fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8')
const mode = (file: string) => fs.statSync(file).mode & 0o777

/** Resolve once `follower` has read up to `seq` (through its watcher or poll, not a sleep). */
function caughtUp(follower: TaskStore, seq: number): Promise<void> {
  if (follower.seq >= seq) return Promise.resolve()
  return new Promise((resolve) => {
    const off = follower.subscribe(() => {
      if (follower.seq >= seq) {
        off()
        resolve()
      }
    })
  })
}

const PLAN = { tasks: [{ key: 'a', title: 'A', brief: 'Do A.', assignee: 'bot-1' }] }
const planCtx = () => ({ now: new Date().toISOString(), creator: { kind: 'user' as const }, chain: { hop: 0 }, bots: new Set(['bot-1']) })

describe('durability', () => {
  it('transitions survive a restart: the writer and a reader rebuild the same tasks, intents and seq', async () => {
    const dir = tempTasks()
    const a = await open(dir)
    await steps(a, 60)
    const before = { seq: a.seq, digest: digest(a), tasks: a.board.size }
    expect(before.tasks).toBeGreaterThan(5)
    expect(a.pending().length).toBeGreaterThan(0) // no hand-over wired: the dispatches stay pending
    await a.close()
    const b = await open(dir)
    expect({ seq: b.seq, digest: digest(b), tasks: b.board.size }).toEqual(before)
    const reader = await open(dir, { mayWrite: () => false })
    expect({ seq: reader.seq, digest: digest(reader) }).toEqual({ seq: before.seq, digest: before.digest })
    expect(reader.mode).toBe('follower')
    expect([...reader.board.all()].flatMap(historyProblems)).toEqual([])
    expect(b.problems()).toEqual([])
  })

  it('a refusal writes nothing: the journal stays byte for byte the same', async () => {
    const dir = tempTasks()
    const s = await open(dir)
    await s.transact((v) => plan(v, PLAN, planCtx()))
    const bytes = journal(dir)
    const r = await s.transact((v) => plan(v, { tasks: [{ key: 'x', title: 'X', brief: 'B', blockedBy: ['x'] }] }, planCtx()))
    expect(r).toEqual({ ok: false, refusal: "The plan was not accepted: 'x' is blocked by itself. Nothing was created." })
    const second = await s.transact((v) =>
      claim(v, 'task-9', { now: new Date().toISOString(), actor: { kind: 'system' }, botId: 'bot-1', sessionId: 's', leaseMs: 60_000 }),
    )
    expect(second.ok).toBe(false)
    expect(journal(dir)).toBe(bytes)
    expect(s.seq).toBe(1)
  })

  it('files are 0600 in a 0700 folder whatever the umask (a writer in a process with umask 000)', async () => {
    const dir = tempTasks()
    const child = spawn(process.execPath, [CHILD, dir, path.join(dir, '..', 'handed.log'), 'steps=40', '2048'], {
      env: { ...process.env, TASK_CHILD_UMASK: '000' },
    })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect(code).toBe(0)
    expect(out).toMatch(/compacted/) // the snapshot was written too
    expect(mode(dir)).toBe(0o700)
    for (const name of fs.readdirSync(dir)) expect([name, mode(path.join(dir, name))]).toEqual([name, 0o600])
    expect(fs.readdirSync(dir).sort()).toEqual([JOURNAL_FILE, SNAPSHOT_FILE])
  })
})

describe('one writer', () => {
  it('a process that may not write is refused with EFOLLOWER and writes nothing; once it may, it catches up first', async () => {
    const dir = tempTasks()
    let may = false
    const writer = await open(dir)
    const other = await open(dir, { mayWrite: () => may })
    await writer.transact((v) => plan(v, PLAN, planCtx()))
    const bytes = journal(dir)
    const refused = await other.transact((v) => plan(v, PLAN, planCtx())).catch((e) => e)
    expect(isStoreError(refused, 'EFOLLOWER')).toBe(true)
    expect(refused.message).toMatch(/only follows them/)
    expect(journal(dir)).toBe(bytes)
    await steps(writer, 5)
    const seq = writer.seq
    await writer.close()
    may = true
    const r = await other.transact((v) => plan(v, PLAN, planCtx()))
    expect(r).toMatchObject({ ok: true, seq: seq + 1 })
    expect(other.mode).toBe('writer')
    const reread = await open(dir, { mayWrite: () => false })
    expect(digest(reread)).toBe(digest(other))
  })

  it('a writer that may no longer write becomes a follower and refuses', async () => {
    const dir = tempTasks()
    let may = true
    const s = await open(dir, { mayWrite: () => may })
    await s.transact((v) => plan(v, PLAN, planCtx()))
    may = false
    await expect(s.transact((v) => plan(v, PLAN, planCtx()))).rejects.toMatchObject({ code: 'EFOLLOWER' })
    expect(s.mode).toBe('follower')
  })
})

describe('following', () => {
  it('a follower in another process sees the writer’s transitions as they land, across compactions', async () => {
    const dir = tempTasks()
    // the writer is a child process: 150 transitions, compacting whenever the journal passes 2 KiB
    const follower = await open(dir, { mayWrite: () => false })
    const seen: number[] = []
    follower.subscribe((c) => seen.push(c.seq))
    const child = spawn(process.execPath, [CHILD, dir, path.join(dir, '..', 'handed.log'), 'steps=150', '2048'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0)
    const final = JSON.parse(
      out
        .split('\n')
        .find((l) => l.startsWith('final '))!
        .slice(6),
    )
    expect(out.split('\n').filter((l) => l === 'compacted').length).toBeGreaterThan(3)
    await caughtUp(follower, final.seq)
    expect(follower.seq).toBe(final.seq)
    expect(digest(follower)).toBe(final.digest)
    // it saw the ledger move along the way, not only at the end
    expect(new Set(seen).size).toBeGreaterThan(3)
    expect(follower.problems()).toEqual([])
  })

  it('an in-process follower is told of each transition with the tasks it touched', async () => {
    const dir = tempTasks()
    const writer = await open(dir)
    const follower = await open(dir, { mayWrite: () => false })
    const changes: string[][] = []
    follower.subscribe((c) => {
      if (!c.reloaded) changes.push(c.tasks.map((t) => `${t.id}:${t.status}`))
    })
    await writer.transact((v) => plan(v, { tasks: [...PLAN.tasks, { key: 'b', title: 'B', brief: 'Do B.', blockedBy: ['a'] }] }, planCtx()))
    await caughtUp(follower, writer.seq)
    await writer.transact((v) =>
      claim(v, 'task-1', { now: new Date().toISOString(), actor: { kind: 'system' }, botId: 'bot-1', sessionId: 's-1', leaseMs: 60_000 }),
    )
    await caughtUp(follower, writer.seq)
    expect(changes.flat()).toEqual(['task-1:ready', 'task-2:blocked', 'task-1:working'])
    expect(follower.pending().map((i) => i.kind)).toEqual(['dispatch'])
  })
})

describe('damaged files', () => {
  it('a torn last record is ignored (a reader still loads); the writer reports it, cuts it, and appends after it', async () => {
    const dir = tempTasks()
    const a = await open(dir)
    await steps(a, 10)
    const want = { seq: a.seq, digest: digest(a) }
    await a.close()
    const whole = journal(dir)
    fs.appendFileSync(path.join(dir, JOURNAL_FILE), '{"seq":11,"at":"2025-01-01T00:00:00.000Z","ops":[{"id":"task-1","se')
    const reader = await open(dir, { mayWrite: () => false })
    expect({ seq: reader.seq, digest: digest(reader) }).toEqual(want)
    expect(reader.status().tornBytes).toBeGreaterThan(0)
    const reported: string[] = []
    const b = await open(dir, { report: (p) => reported.push(p.code) })
    expect(reported).toEqual(['torn-tail'])
    expect(b.problems()[0]!.message).toMatch(/^The last tasks record was cut off \(\d+ bytes of a write that never finished\); it was ignored and removed\.$/)
    expect(journal(dir)).toBe(whole)
    await steps(b, 3)
    await b.close()
    const c = await open(dir)
    expect(c.problems()).toEqual([])
    expect(c.seq).toBe(want.seq + 3)
  })

  it('a record that fails the schema and a line that is not JSON are reported and skipped, the rest kept; a copy is kept and the store compacts', async () => {
    const dir = tempTasks()
    const a = await open(dir)
    await a.transact((v) => plan(v, PLAN, planCtx()))
    await a.transact((v) => plan(v, { tasks: [{ title: 'Second', brief: 'Do it.' }] }, planCtx()))
    await a.transact((v) => plan(v, { tasks: [{ title: 'Third', brief: 'Do it.' }] }, planCtx()))
    await a.close()
    const lines = journal(dir).split('\n')
    // record 2 (line 2) gets a status no build knows; a garbage line goes in before record 3
    lines[2] = lines[2]!.replace('"status":"ready"', '"status":"sideways"')
    lines.splice(3, 0, 'not json at all')
    fs.writeFileSync(path.join(dir, JOURNAL_FILE), lines.join('\n'))
    const reader = await open(dir, { mayWrite: () => false })
    expect([...reader.board.all()].map((t) => t.title)).toEqual(['A', 'Third'])
    expect(reader.problems().map((p) => p.code)).toEqual(['bad-record', 'bad-record'])
    expect(reader.problems()[0]!.message).toMatch(/^Tasks record 2 gives an invalid task \(status: .*\); it was skipped\.$/)
    expect(reader.seq).toBe(3)
    const writer = await open(dir)
    // no snapshot was written yet: the journal alone is copied, as it was found
    expect(writer.problems().map((p) => p.code)).toEqual(['bad-record', 'bad-record', 'broken-copy'])
    const copies = fs.readdirSync(dir).filter((n) => n.includes('.broken-'))
    expect(copies).toEqual([expect.stringMatching(/^journal\.broken-.*\.jsonl$/)])
    expect(fs.readFileSync(path.join(dir, copies[0]!), 'utf8')).toBe(lines.join('\n'))
    await writer.close()
    const again = await open(dir)
    expect(again.problems()).toEqual([])
    expect([...again.board.all()].map((t) => t.title)).toEqual(['A', 'Third'])
  })

  it('a snapshot line that fails the schema is reported and skipped, every other task kept', async () => {
    const dir = tempTasks()
    const a = await open(dir, { compactBytes: 1 })
    await steps(a, 12)
    await a.compact()
    const want = [...a.board.all()].map((t) => t.id)
    await a.close()
    const lines = fs.readFileSync(path.join(dir, SNAPSHOT_FILE), 'utf8').split('\n')
    lines[2] = lines[2]!.replace('"title":"', '"title":7,"x":"')
    fs.writeFileSync(path.join(dir, SNAPSHOT_FILE), lines.join('\n'))
    const reader = await open(dir, { mayWrite: () => false })
    expect(reader.problems().map((p) => [p.code, p.message])).toEqual([
      ['bad-line', 'Line 3 of the tasks snapshot is not a valid task or intent; it was skipped.'],
    ])
    expect([...reader.board.all()].map((t) => t.id)).toEqual(want.filter((_, i) => i !== 1))
  })

  it('a ledger written by a newer build is shown read-only and never written', async () => {
    const dir = tempTasks()
    const a = await open(dir)
    await a.transact((v) => plan(v, PLAN, planCtx()))
    await a.compact()
    await a.close()
    const snap = path.join(dir, SNAPSHOT_FILE)
    fs.writeFileSync(snap, fs.readFileSync(snap, 'utf8').replace(`"v":${TASKS_FORMAT}`, `"v":${TASKS_FORMAT + 1}`))
    const before = fs.readdirSync(dir).map((n) => [n, fs.readFileSync(path.join(dir, n), 'utf8')])
    const b = await open(dir)
    expect(b.mode).toBe('read-only')
    expect(b.board.get('task-1')?.title).toBe('A')
    await expect(b.transact((v) => plan(v, PLAN, planCtx()))).rejects.toMatchObject({ code: 'EREADONLY' })
    expect(fs.readdirSync(dir).map((n) => [n, fs.readFileSync(path.join(dir, n), 'utf8')])).toEqual(before)
  })
})

describe('formats', () => {
  const FIXTURE_JOURNAL = fileURLToPath(new URL('../../fixtures/team-v6-09edfa6/tasks/journal.jsonl', import.meta.url))
  const header = (dir: string, file: string) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8').split('\n')[0]!)

  it('a ledger an older build wrote is upgraded by the writer only, once: one record of the step, then files in this format; a follower reads it as it is', async () => {
    const dir = tempTasks()
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    fs.copyFileSync(FIXTURE_JOURNAL, path.join(dir, JOURNAL_FILE))
    const before = fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8')
    const follower = await open(dir, { mayWrite: () => false })
    expect(follower.board.get('task-1')!.ask!.grant).toEqual({ used: false })
    expect(fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8')).toBe(before)
    await follower.close()
    const writer = await open(dir)
    expect(writer.seq).toBe(8)
    expect(writer.board.get('task-1')!.ask!.grant).toMatchObject({ used: false, cancelled: { reason: expect.any(String) } })
    expect(header(dir, SNAPSHOT_FILE)).toMatchObject({ v: TASKS_FORMAT, seq: 8 })
    expect(header(dir, JOURNAL_FILE)).toEqual({ v: TASKS_FORMAT, base: 8 })
    const digestAfter = digest(writer)
    await writer.close()
    // opened again: already this format, nothing more is written
    const again = await open(dir)
    expect([again.seq, digest(again)]).toEqual([8, digestAfter])
    expect(journal(dir)).toBe(`${JSON.stringify({ v: TASKS_FORMAT, base: 8 })}\n`)
  })

  it('a step cut by a crash before its compaction runs again and changes nothing more', async () => {
    const dir = tempTasks()
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    fs.copyFileSync(FIXTURE_JOURNAL, path.join(dir, JOURNAL_FILE))
    // The journal as a crash after the step's record leaves it: the format-1 records, then the step's record, no compaction.
    const read = await open(dir, { mayWrite: () => false })
    const at = '2026-12-07T10:00:00.000Z'
    const step = formatTwo(read.board, read.pending(), at)
    const seq = read.seq + 1
    const add = step.intents.map((d, i) => ({ ...d, id: `${seq}.${i}`, at }))
    const record = { seq, at, ops: encodeChanges(read.board, step.changes), add, done: step.drop }
    await read.close()
    fs.appendFileSync(path.join(dir, JOURNAL_FILE), `${JSON.stringify(record)}\n`)
    const reopened = await open(dir)
    expect(reopened.seq).toBe(seq)
    expect(header(dir, SNAPSHOT_FILE)).toMatchObject({ v: TASKS_FORMAT, seq })
    expect(reopened.board.get('task-1')!.history.filter((h) => h.what === 'grant-cancelled')).toHaveLength(1)
    expect(reopened.pending().filter((i) => i.kind === 'answer' && i.taskId === 'task-1')).toEqual([expect.not.objectContaining({ grant: true })])
  })

  /** The headers' formats of the snapshot and the journal (null: no file). */
  const formats = (dir: string) => [SNAPSHOT_FILE, JOURNAL_FILE].map((f) => (fs.existsSync(path.join(dir, f)) ? header(dir, f).v : null))
  /** Journal appends from now on: those numbered in `fail` (1 = the next) fail as on a full disk, the others are written. */
  const diskFull = (...fail: number[]) => {
    const proto = TaskStore.prototype as unknown as { append(this: TaskStore, r: unknown): Promise<void> }
    const append = proto.append
    let n = 0
    vi.spyOn(proto, 'append').mockImplementation(function (this: TaskStore, r: unknown) {
      if (fail.includes(++n)) return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))
      return append.call(this, r)
    })
  }
  const grantTurns = (s: TaskStore, taskId: string) => s.pending().filter((i) => i.kind === 'answer' && i.taskId === taskId)

  it("a damaged format-1 ledger gets its format step before the repair compaction: cut at the step's record, the files stay format 1, and the next start cancels the grant", async () => {
    const dir = fixtureLedger(tempTasks())
    fs.appendFileSync(path.join(dir, JOURNAL_FILE), 'this line is not JSON\n')
    diskFull(1)
    const cut = await open(dir)
    expect(cut.problems().map((p) => p.code)).toEqual(expect.arrayContaining(['bad-record', 'broken-copy', 'write-failed']))
    await cut.close()
    // nothing stamped format 2 without the step (a compaction before it did)
    expect(formats(dir)).toEqual([null, 1])
    const next = await open(dir)
    expect(formats(dir)).toEqual([TASKS_FORMAT, TASKS_FORMAT])
    expect(next.board.get('task-1')!.ask!.grant).toMatchObject({ used: false, cancelled: { reason: expect.any(String) } })
    expect(grantTurns(next, 'task-1')).toEqual([expect.not.objectContaining({ grant: true })])
  })

  it('a format step whose record cannot be written at a takeover holds every change and hand-over, saying why, and is recorded before the next change once it can be; only then is format 2 stamped', async () => {
    const dir = fixtureLedger(tempTasks())
    const handed: Intent[] = []
    let may = false
    const s = await open(dir, { mayWrite: () => may, handOver: { deliver: async (i) => handed.push(i), delivered: async () => false } })
    diskFull(1, 2)
    may = true
    expect(await s.refresh()).toBe('writer')
    expect(s.problems().at(-1)!.message).toMatch(
      /^The task ledger was written by an older build, and the step to this build's format could not be recorded \(ENOSPC/,
    )
    // still full: a change is refused, saying why; a compaction keeps format 1; nothing is handed over
    await expect(s.transact((v) => plan(v, PLAN, planCtx()))).rejects.toMatchObject({
      code: 'EREADONLY',
      message: expect.stringMatching(/could not be recorded \(ENOSPC.*nothing changed\. It is tried again at the next change\.$/),
    })
    await s.compact()
    expect(formats(dir)).toEqual([1, 1])
    expect(await s.recover()).toEqual({ found: 0, handed: 0, failed: 0 })
    expect(handed).toEqual([])
    // room again: the next change records the step first, then itself
    expect((await s.transact((v) => plan(v, PLAN, planCtx()))).ok).toBe(true)
    await s.settled()
    expect(s.board.get('task-1')!.ask!.grant).toMatchObject({ used: false, cancelled: { reason: expect.any(String) } })
    expect(handed.filter((i) => i.taskId === 'task-1')).toEqual([expect.not.objectContaining({ grant: true })])
    expect(formats(dir)).toEqual([TASKS_FORMAT, TASKS_FORMAT])
  })

  it('a format step over more tasks than one record holds is recorded in parts within the limit: 2,500 unused grants come back cancelled, each queued grant turn replaced once', async () => {
    const dir = tempTasks()
    await largeFormat1Ledger(dir, 2_500)
    const s = await open(dir)
    const parts = s.seq - 1
    expect(parts).toBeGreaterThan(1)
    const tasks = [...s.board.all()]
    expect(tasks.filter((t) => t.ask?.grant?.cancelled && t.history.filter((h) => h.what === 'grant-cancelled').length === 1)).toHaveLength(2_500)
    const turns = s.pending().filter((i) => i.kind === 'answer')
    expect([turns.length, turns.filter((i) => i.kind === 'answer' && i.grant).length, new Set(turns.map((i) => i.taskId)).size]).toEqual([2_500, 0, 2_500])
    expect(formats(dir)).toEqual([TASKS_FORMAT, TASKS_FORMAT])
  })

  it('a format step cut between its parts runs again on what is left: every grant is cancelled once and every turn replaced once', async () => {
    const dir = tempTasks()
    await largeFormat1Ledger(dir, 2_500)
    // the first part is recorded; the second is not (the process dies there)
    diskFull(2)
    const cut = await open(dir)
    const first = cut.seq - 1
    const cancelled = [...cut.board.all()].filter((t) => t.ask?.grant?.cancelled).length
    expect([first, cancelled > 0 && cancelled < 2_500]).toEqual([1, true])
    await cut.close()
    vi.restoreAllMocks()
    expect(formats(dir)).toEqual([1, 1])
    const s = await open(dir)
    const tasks = [...s.board.all()]
    expect(tasks.filter((t) => t.ask?.grant?.cancelled && t.history.filter((h) => h.what === 'grant-cancelled').length === 1)).toHaveLength(2_500)
    const turns = s.pending().filter((i) => i.kind === 'answer')
    expect([turns.length, turns.filter((i) => i.kind === 'answer' && i.grant).length, new Set(turns.map((i) => i.taskId)).size]).toEqual([2_500, 0, 2_500])
    expect(formats(dir)).toEqual([TASKS_FORMAT, TASKS_FORMAT])
  })
})

describe('compaction', () => {
  it('keeps every task: many compactions later the snapshot and journal rebuild the same ledger, and the journal stays small', async () => {
    const dir = tempTasks()
    const s = await open(dir, { compactBytes: 4096 })
    const sizes = new Set<number>()
    let maxJournal = 0
    for (let i = 0; i < 40; i++) {
      await steps(s, 10)
      await s.settled()
      sizes.add(s.status().snapshotBytes)
      maxJournal = Math.max(maxJournal, fs.statSync(path.join(dir, JOURNAL_FILE)).size)
    }
    expect(sizes.size).toBeGreaterThan(5)
    const ids = [...s.board.all()].map((t) => t.id)
    expect(ids).toEqual(Array.from({ length: s.board.nextId - 1 }, (_, i) => `task-${i + 1}`))
    // bounded: the journal never grows far past the larger of the threshold and the snapshot
    expect(maxJournal).toBeLessThan(Math.max(4096, s.status().snapshotBytes) + 64 * 1024)
    const want = { seq: s.seq, digest: digest(s) }
    await s.close()
    const again = await open(dir)
    expect({ seq: again.seq, digest: digest(again) }).toEqual(want)
    expect(again.problems()).toEqual([])
  })
})

describe('the outbox', () => {
  function fakeHandOver(already: Set<string> = new Set()) {
    const delivered: string[] = []
    const probed: string[] = []
    const h: HandOver = {
      async deliver(i: Intent) {
        delivered.push(i.id)
      },
      async delivered(i: Intent) {
        probed.push(i.id)
        return already.has(i.id)
      },
    }
    return { h, delivered, probed }
  }

  it('each intent is handed over once, right after its record, and marked done', async () => {
    const dir = tempTasks()
    const { h, delivered, probed } = fakeHandOver()
    const s = await open(dir, { handOver: h })
    await steps(s, 30)
    await s.settled()
    const dispatched = journal(dir)
      .split('\n')
      .filter((l) => l.includes('"add"'))
      .flatMap((l) => JSON.parse(l).add.map((i: Intent) => i.id))
    expect(dispatched.length).toBeGreaterThan(3)
    expect(delivered).toEqual(dispatched)
    expect(probed).toEqual([])
    expect(s.pending()).toEqual([])
  })

  it('after a crash, a pending intent already handed over is marked done without a second hand-over; the others are handed over', async () => {
    const dir = tempTasks()
    const a = await open(dir) // no hand-over: the intents stay pending, as if DSH died right after recording
    await a.transact((v) =>
      plan(v, { tasks: [PLAN.tasks[0]!, { title: 'B', brief: 'Do B.', assignee: 'bot-2' }] }, { ...planCtx(), bots: new Set(['bot-1', 'bot-2']) }),
    )
    const now = new Date().toISOString()
    for (const [id, bot] of [
      ['task-1', 'bot-1'],
      ['task-2', 'bot-2'],
    ])
      await a.transact((v) => claim(v, id!, { now, actor: { kind: 'system' }, botId: bot!, sessionId: `s-${id}`, leaseMs: 60_000 }))
    const pending = a.pending().map((i) => i.id)
    expect(pending).toEqual(['2.0', '3.0'])
    await a.close()
    // '2.0' reached its Session before the crash; '3.0' did not
    const { h, delivered, probed } = fakeHandOver(new Set(['2.0']))
    const b = await open(dir, { handOver: h })
    await b.settled()
    expect(probed).toEqual(['2.0', '3.0'])
    expect(delivered).toEqual(['3.0'])
    expect(b.pending()).toEqual([])
    await b.close()
    const { h: h2, delivered: d2, probed: p2 } = fakeHandOver()
    const c = await open(dir, { handOver: h2 })
    await c.settled()
    expect([d2, p2]).toEqual([[], []])
  })

  it('a hand-over that fails is reported and stays pending; recover() hands it over later', async () => {
    const dir = tempTasks()
    let fail = true
    const delivered: string[] = []
    const s = await open(dir, {
      handOver: {
        async deliver(i) {
          if (fail) throw new Error('the Session could not be opened')
          delivered.push(i.id)
        },
        delivered: async () => false,
      },
    })
    await s.transact((v) => plan(v, PLAN, planCtx()))
    await s.transact((v) => claim(v, 'task-1', { now: new Date().toISOString(), actor: { kind: 'system' }, botId: 'bot-1', sessionId: 's-1', leaseMs: 60_000 }))
    await s.settled()
    expect(s.pending().map((i) => i.id)).toEqual(['2.0'])
    expect(s.problems().map((p) => p.message)).toEqual([
      'Intent 2.0 (dispatch of task-1) was not handed over: the Session could not be opened. It stays pending.',
    ])
    fail = false
    expect(await s.recover()).toEqual({ found: 0, handed: 1, failed: 0 })
    expect(delivered).toEqual(['2.0'])
    expect(s.pending()).toEqual([])
  })
})

describe('what the writer checks', () => {
  it('a transition whose result fails the schema (a policy bug) is refused with EINVALID and writes nothing', async () => {
    const dir = tempTasks()
    const s = await open(dir)
    await s.transact((v) => plan(v, PLAN, planCtx()))
    const bytes = journal(dir)
    const task = s.board.get('task-1')!
    await expect(
      s.transact(() => ({ ok: true, changes: [{ task: { ...task, lease: { attempt: 0, sessionId: '', expiresAt: '' } }, entry: null }], intents: [] })),
    ).rejects.toMatchObject({
      code: 'EINVALID',
      message: expect.stringMatching(/^The transition was not saved: it gives an invalid task \(lease\.attempt: /),
    })
    expect(journal(dir)).toBe(bytes)
    expect(s.board.get('task-1')).toBe(task)
  })
})

describe('races', () => {
  it('two claims of one task made at once: exactly one wins, the other is refused, and one attempt is recorded', async () => {
    const dir = tempTasks()
    const s = await open(dir)
    await s.transact((v) => plan(v, { tasks: [{ title: 'Free', brief: 'Anyone may take it.' }] }, { ...planCtx(), bots: new Set(['bot-1', 'bot-2']) }))
    const now = new Date().toISOString()
    const results = await Promise.all(
      ['bot-1', 'bot-2'].map((botId) =>
        s.transact((v) => claim(v, 'task-1', { now, actor: { kind: 'system' }, botId, sessionId: `s-${botId}`, leaseMs: 60_000 })),
      ),
    )
    expect(results.map((r) => r.ok)).toEqual([true, false])
    expect(!results[1]!.ok && results[1]!.refusal).toMatch(/^Task task-1 is already being worked on \(attempt 1, by bot-1\)/)
    await s.close()
    const again = await open(dir, { mayWrite: () => false })
    expect(again.board.get('task-1')).toMatchObject({ status: 'working', assignee: { botId: 'bot-1' }, attempts: [{ n: 1, sessionId: 's-bot-1' }] })
  })
})
