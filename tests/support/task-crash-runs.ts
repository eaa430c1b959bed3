// Crash runs of the task store (the crash test small, the soak large): the writer child
// (tests/dsh/tasks/fixtures/task-child.ts) runs the ledger workload and is SIGKILLed at a random
// moment; a reader then checks the folder and the next child goes on from there. Problems are
// counted, not thrown. After each kill: no problem but a torn tail; seq ≥ the last acknowledged;
// the digest at a printed seq is the one printed; the next child rebuilds what the reader saw.
// At the end (a final child closes every task): each acknowledged intent handed over exactly once,
// none pending, every task done, failed or cancelled, no history broken.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { TaskStore } from '../../src/tasks/store.ts'
import { runChild } from './child-run.ts'
import { ledgerDigest } from './task-workload.ts'

const CHILD = fileURLToPath(new URL('../dsh/tasks/fixtures/task-child.ts', import.meta.url))

export interface TaskCrashStats {
  kills: number
  acknowledged: number
  /** Kills after which the store's seq was below the last acknowledged one. */
  lost: number
  /** Reads whose digest differed from what the child printed at the same seq, or from the next child's own load. */
  mismatched: number
  /** Reads that reported a problem other than a torn tail. */
  corrupt: number
  tornTails: number
  /** Intents handed over more than once / acknowledged but never handed over / left pending. */
  duplicated: number
  missing: number
  pendingLeft: number
  openLeft: number
  historyProblems: number
  /** Compactions the children reported (each one a new snapshot and journal under the kills). */
  compactions: number
  /** Pending intents the children's recoveries found already handed over / handed over themselves. */
  recoveredFound: number
  recoveredHanded: number
  finalSeq: number
  problems: string[]
}

interface Printed {
  lines: string[]
  killed: boolean
}

async function child(dir: string, handed: string, mode: 'run' | 'final', killAfterMs?: number): Promise<Printed> {
  const r = await runChild(
    CHILD,
    [dir, handed, mode],
    killAfterMs === undefined ? {} : { kill: { armedBy: (line) => line.startsWith('open '), ms: killAfterMs } },
  )
  if (r.signal === 'SIGKILL' || (r.code === 0 && killAfterMs === undefined)) return { lines: r.lines, killed: r.signal === 'SIGKILL' }
  throw new Error(`task child (${mode}) ended with ${r.code ?? r.signal}: ${r.stderr.slice(0, 500)}`)
}

async function read(dir: string) {
  const store = await TaskStore.open({ dir, mayWrite: () => false })
  const seen = { seq: store.seq, digest: ledgerDigest(store.board.all(), store.pending()), problems: store.problems(), torn: store.status().tornBytes }
  await store.close()
  return seen
}

async function lane(kills: number, stats: TaskCrashStats) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bot-tasks-crash-'))
  const dir = path.join(home, 'bot', 'tasks')
  const handed = path.join(home, 'handed.log')
  const acked = new Set<string>()
  let lastAck = 0
  let expectOpen: { seq: number; digest: string } | undefined
  for (let i = 0; i < kills; i++) {
    let run: Printed
    try {
      // the kill lands anywhere from the first transition to a few dozen in
      run = await child(dir, handed, 'run', Math.random() * 150)
    } catch (error) {
      stats.problems.push(`run ${i + 1}: ${(error as Error).message}`)
      continue
    }
    stats.kills++
    const printed = new Map<number, string>()
    for (const l of run.lines) {
      const [kind, seq, digest, ...ids] = l.split(' ')
      if (kind === 'open' && expectOpen && (Number(seq) !== expectOpen.seq || digest !== expectOpen.digest)) {
        stats.mismatched++
        stats.problems.push(`run ${i + 1} rebuilt seq ${seq} ${digest}, the reader before it saw ${expectOpen.seq} ${expectOpen.digest}`)
      }
      if (kind === 'ack' || kind === 'settled' || kind === 'open') printed.set(Number(seq), digest!)
      if (kind === 'ack') {
        stats.acknowledged++
        lastAck = Math.max(lastAck, Number(seq))
        for (const id of ids) acked.add(id)
      }
      if (kind === 'compacted') stats.compactions++
      if (kind === 'recovered') {
        const r = JSON.parse(l.slice(10)) as { found: number; handed: number }
        stats.recoveredFound += r.found
        stats.recoveredHanded += r.handed
      }
      if (kind === 'problem' && !l.includes('"torn-tail"')) stats.problems.push(`run ${i + 1} reported ${l.slice(8, 300)}`)
    }
    const seen = await read(dir)
    const bad = seen.problems.filter((p) => p.code !== 'torn-tail')
    if (bad.length) {
      stats.corrupt++
      stats.problems.push(`after kill ${i + 1}: ${bad.map((p) => `${p.code}: ${p.message}`).join('; ')}`)
    }
    if (seen.torn) stats.tornTails++
    if (seen.seq < lastAck) {
      stats.lost++
      stats.problems.push(`after kill ${i + 1} the store is at ${seen.seq}, but ${lastAck} was acknowledged`)
    }
    const want = printed.get(seen.seq)
    if (want !== undefined && want !== seen.digest) {
      stats.mismatched++
      stats.problems.push(`after kill ${i + 1} seq ${seen.seq} reads as ${seen.digest}, the writer had ${want}`)
    }
    expectOpen = { seq: seen.seq, digest: seen.digest }
  }
  let final: { seq: number; pending: number; statuses: Record<string, number>; handed: string[]; history: string[] } | undefined
  try {
    const { lines } = await child(dir, handed, 'final')
    const line = lines.find((l) => l.startsWith('final '))
    final = line ? JSON.parse(line.slice(6)) : undefined
    for (const l of lines) if (l.startsWith('ack ')) for (const id of l.split(' ').slice(3)) acked.add(id)
  } catch (error) {
    stats.problems.push(`final run: ${(error as Error).message}`)
  }
  if (!final) {
    stats.problems.push(`${home}: the final run printed no summary`)
    return
  }
  const counts = new Map<string, number>()
  for (const id of final.handed) counts.set(id, (counts.get(id) ?? 0) + 1)
  for (const [id, n] of counts) {
    if (n > 1) {
      stats.duplicated++
      stats.problems.push(`intent ${id} was handed over ${n} times`)
    }
  }
  for (const id of acked) {
    if (!counts.has(id)) {
      stats.missing++
      stats.problems.push(`acknowledged intent ${id} was never handed over`)
    }
  }
  stats.pendingLeft += final.pending
  const open = Object.entries(final.statuses).filter(([s]) => s !== 'done' && s !== 'failed' && s !== 'cancelled')
  stats.openLeft += open.reduce((n, [, c]) => n + c, 0)
  stats.historyProblems += final.history.length
  stats.problems.push(...final.history.slice(0, 10))
  if (open.length) stats.problems.push(`tasks left open: ${JSON.stringify(final.statuses)}`)
  stats.finalSeq += final.seq
  fs.rmSync(home, { recursive: true, force: true })
}

/** SIGKILL the task store's writer `kills` times over `lanes` folders in parallel. */
export async function runTaskCrashes(opts: { kills: number; lanes?: number }): Promise<TaskCrashStats> {
  const lanes = Math.max(1, Math.min(opts.lanes ?? 2, opts.kills))
  const stats: TaskCrashStats = {
    kills: 0,
    acknowledged: 0,
    lost: 0,
    mismatched: 0,
    corrupt: 0,
    tornTails: 0,
    duplicated: 0,
    missing: 0,
    pendingLeft: 0,
    openLeft: 0,
    historyProblems: 0,
    compactions: 0,
    recoveredFound: 0,
    recoveredHanded: 0,
    finalSeq: 0,
    problems: [],
  }
  const per = Array.from({ length: lanes }, (_, i) => Math.floor(opts.kills / lanes) + (i < opts.kills % lanes ? 1 : 0))
  await Promise.all(per.map((k) => lane(k, stats)))
  return stats
}

export function taskCrashLine(prefix: string, s: TaskCrashStats): string {
  return `${prefix}: kills=${s.kills} lost=${s.lost} mismatched=${s.mismatched} corrupt=${s.corrupt} duplicated=${s.duplicated} missing=${s.missing} pending_left=${s.pendingLeft} open_left=${s.openLeft} history_problems=${s.historyProblems} torn_tails=${s.tornTails} compactions=${s.compactions} recovered_found=${s.recoveredFound} recovered_handed=${s.recoveredHanded} acknowledged=${s.acknowledged} final_seq=${s.finalSeq}`
}
