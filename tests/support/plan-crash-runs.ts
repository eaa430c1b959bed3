// Crash runs of the task service (the crash test small, the soak large): a DSH process with the
// whole plugin (tests/dsh/tasks/fixtures/plan-child.ts) runs plans and is SIGKILLed at a random
// moment; a reader then checks the ledger and the next process goes on from there. Problems are
// counted, not thrown. After each kill: no problem but a torn tail, no transition the process
// printed as durable is missing. At the end (a final process runs every task to its end): every
// task done, failed or cancelled, none accepted twice, no attempt's turn run twice, nothing pending.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { TaskStore } from '../../src/tasks/store.ts'
import { runChild } from './child-run.ts'

const CHILD = fileURLToPath(new URL('../dsh/tasks/fixtures/plan-child.ts', import.meta.url))
/** A kill lands this long after the process opened its ledger, at most. */
const KILL_WINDOW_MS = 1500

export interface PlanCrashStats {
  kills: number
  acknowledged: number
  /** Kills after which the ledger's seq was below the last transition printed as durable. */
  lost: number
  corrupt: number
  /** Tasks accepted twice; attempts whose message entered a task Session twice. */
  doneTwice: number
  ranTwice: number
  openLeft: number
  pendingLeft: number
  /** Attempts ended as cut by a crash; attempts run in all. */
  crashed: number
  attempts: number
  tasks: number
  problems: string[]
}

/** How long the final process may take to close every task (it reports, it does not hang the run). */
const FINAL_MS = 180_000

async function child(home: string, mode: 'run' | 'final', killAfterMs?: number): Promise<string[]> {
  const r = await runChild(CHILD, [home, mode], {
    ...(killAfterMs === undefined ? {} : { kill: { armedBy: (line) => line.startsWith('open '), ms: killAfterMs } }),
    ...(mode === 'final' ? { stallMs: FINAL_MS } : {}),
  })
  if (mode === 'final' && r.signal === 'SIGKILL') throw new Error(`the final run did not close every task within ${FINAL_MS / 1000} s`)
  if (r.signal === 'SIGKILL' || (r.code === 0 && killAfterMs === undefined)) return r.lines
  throw new Error(`plan child (${mode}) ended with ${r.code ?? r.signal}: ${r.stderr.slice(-800)}`)
}

async function lane(kills: number, stats: PlanCrashStats) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bot-plans-crash-'))
  const dir = path.join(home, 'bot', 'tasks')
  let lastAck = 0
  for (let i = 0; i < kills; i++) {
    let lines: string[]
    try {
      // At any moment of a plan: before the first dispatch, mid-turn, between a submit and its review.
      lines = await child(home, 'run', Math.random() * KILL_WINDOW_MS)
    } catch (error) {
      stats.problems.push(`run ${i + 1}: ${(error as Error).message}`)
      continue
    }
    stats.kills++
    for (const l of lines) {
      if (!l.startsWith('ack ')) continue
      stats.acknowledged++
      lastAck = Math.max(lastAck, Number(l.slice(4)))
    }
    const store = await TaskStore.open({ dir, mayWrite: () => false })
    const bad = store.problems().filter((p) => p.code !== 'torn-tail')
    if (bad.length) {
      stats.corrupt++
      stats.problems.push(`after kill ${i + 1}: ${bad.map((p) => `${p.code}: ${p.message}`).join('; ')}`)
    }
    if (store.seq < lastAck) {
      stats.lost++
      stats.problems.push(`after kill ${i + 1} the ledger is at ${store.seq}, but ${lastAck} was printed as durable`)
    }
    await store.close()
  }
  let final:
    | { seq: number; statuses: Record<string, number>; pending: number; acceptedTwice: string[]; ranTwice: string[]; attempts: number; crashed: number }
    | undefined
  try {
    const line = (await child(home, 'final')).find((l) => l.startsWith('final '))
    final = line ? JSON.parse(line.slice(6)) : undefined
  } catch (error) {
    stats.problems.push(`final run: ${(error as Error).message}`)
  }
  if (!final) {
    stats.problems.push(`${home}: the final run printed no summary`)
    return
  }
  stats.doneTwice += final.acceptedTwice.length
  stats.ranTwice += final.ranTwice.length
  for (const id of [...final.acceptedTwice, ...final.ranTwice].slice(0, 10)) stats.problems.push(`${id} was done or run twice`)
  const open = Object.entries(final.statuses).filter(([s]) => s !== 'done' && s !== 'failed' && s !== 'cancelled')
  stats.openLeft += open.reduce((n, [, c]) => n + c, 0)
  if (open.length) stats.problems.push(`tasks left open: ${JSON.stringify(final.statuses)}`)
  stats.pendingLeft += final.pending
  stats.crashed += final.crashed
  stats.attempts += final.attempts
  stats.tasks += Object.values(final.statuses).reduce((a, b) => a + b, 0)
  fs.rmSync(home, { recursive: true, force: true })
}

/** SIGKILL the task service `kills` times over `lanes` homes in parallel. */
export async function runPlanCrashes(opts: { kills: number; lanes?: number }): Promise<PlanCrashStats> {
  const lanes = Math.max(1, Math.min(opts.lanes ?? 2, opts.kills))
  const stats: PlanCrashStats = {
    kills: 0,
    acknowledged: 0,
    lost: 0,
    corrupt: 0,
    doneTwice: 0,
    ranTwice: 0,
    openLeft: 0,
    pendingLeft: 0,
    crashed: 0,
    attempts: 0,
    tasks: 0,
    problems: [],
  }
  const per = Array.from({ length: lanes }, (_, i) => Math.floor(opts.kills / lanes) + (i < opts.kills % lanes ? 1 : 0))
  await Promise.all(per.map((k) => lane(k, stats)))
  return stats
}

export function planCrashLine(prefix: string, s: PlanCrashStats): string {
  return `${prefix}: kills=${s.kills} lost_transitions=${s.lost} done_twice=${s.doneTwice} unfinished=${s.openLeft} ran_twice=${s.ranTwice} pending_left=${s.pendingLeft} corrupt=${s.corrupt} tasks=${s.tasks} attempts=${s.attempts} crashed_attempts=${s.crashed} acknowledged=${s.acknowledged}`
}
