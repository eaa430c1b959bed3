// Crash runs shared by the crash tests (small counts) and `npm run soak` (500 + 500): SIGKILL a
// child at random moments, then check what survived. The checks count problems instead of
// throwing (a child that crashes by itself is a problem too, and the run goes on), so a soak
// reports every failure at the end; the tests assert there are none.
//
//   store:    tests/dsh/store/fixtures/crash-writer.ts saves in a tight loop through the store's
//             own save path. After every kill, state.json must parse, pass the schema and equal
//             stateAt(revision) exactly (one whole revision, no mix of two saves), and the revision
//             never goes back. Every `reopenEvery` kills the real store opens the folder: it must
//             be the writer at the last revision and have removed unfinished saves.
//   delivery: tests/dsh/delivery/fixtures/delivery-child.ts runs real DSH in-process and sends
//             messages between Bots until killed. After the last run and a final recovery, every
//             acknowledged message is exactly one `user/message` in its target's Session log, no
//             delivery id appears twice anywhere, every delivered message that wants its answer
//             back has exactly one reply in the sender's log, and nothing is left pending.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import { isTempLeftover } from '../../src/store/load.ts'
import { stateSchema } from '../../src/store/schema.ts'
import { BotStore } from '../../src/store/service.ts'
import { stateAt } from '../dsh/store/fixtures/state-gen.ts'

const CRASH_WRITER = fileURLToPath(new URL('../dsh/store/fixtures/crash-writer.ts', import.meta.url))
const DELIVERY_CHILD = fileURLToPath(new URL('../dsh/delivery/fixtures/delivery-child.ts', import.meta.url))

function tempDir(prefix: string) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix))
}

// ── store ──────────────────────────────────────────────────────────────────────────────────────

export interface StoreCrashStats {
  kills: number
  /** Files that did not parse, failed the schema, or were not exactly one written revision. */
  corrupt: number
  /** Kills after which the revision on disk was lower than after the kill before. */
  regressions: number
  /** Re-opens by the real store that were not a clean writer at the last revision. */
  badReopens: number
  reopens: number
  maxTemps: number
  /** Per lane: the revision on disk after its last kill (shows the loop really was saving). */
  finalRevisions: number[]
  problems: string[]
}

function killWriterOnce(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CRASH_WRITER, dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d) => {
      err += d
    })
    child.stdout.once('data', () => {
      // a random moment inside the save loop (each save is a few ms with fsync)
      setTimeout(() => child.kill('SIGKILL'), Math.random() * 30)
    })
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve()
      else reject(new Error(`crash writer exited by itself (${code}): ${err}`))
    })
  })
}

async function openAndCheck(dir: string, revision: number, stats: StoreCrashStats, final: boolean) {
  const ctx = new Context()
  const fiber = await ctx.plugin(BotStore, { dir, role: 'writer' })
  const store = ctx.botStore
  stats.reopens++
  const names = fs.readdirSync(dir)
  const bad: string[] = []
  if (store.status().mode !== 'writer' || store.status().reason !== null) bad.push(`mode ${store.status().mode}/${store.status().reason}`)
  if (store.state.revision !== revision) bad.push(`revision ${store.state.revision}, expected ${revision}`)
  if (names.some(isTempLeftover)) bad.push('unfinished saves left after opening')
  if (final && names.some((n) => n.includes('broken'))) bad.push('a broken copy was made')
  await fiber.dispose()
  if (bad.length) {
    stats.badReopens++
    stats.problems.push(`re-open of ${dir}: ${bad.join('; ')}`)
  }
}

async function storeLane(kills: number, reopenEvery: number, stats: StoreCrashStats) {
  const dir = path.join(tempDir('bot-crash-'), 'bot')
  fs.mkdirSync(dir)
  const file = path.join(dir, 'state.json')
  let last = 0
  for (let i = 0; i < kills; i++) {
    try {
      await killWriterOnce(dir)
    } catch (error) {
      stats.problems.push(`run ${i + 1}: ${(error as Error).message.slice(0, 300)}`)
      continue
    }
    stats.kills++
    try {
      const parsed = stateSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')))
      // exactly the content written for that revision — no mix of two saves
      if (JSON.stringify(parsed) !== JSON.stringify(stateSchema.parse(stateAt(parsed.revision))))
        throw new Error(`content differs from revision ${parsed.revision}`)
      if (parsed.revision < last) {
        stats.regressions++
        stats.problems.push(`revision went back from ${last} to ${parsed.revision}`)
      }
      last = parsed.revision
    } catch (error) {
      stats.corrupt++
      stats.problems.push(`after kill ${i + 1}: ${(error as Error).message.slice(0, 200)}`)
    }
    stats.maxTemps = Math.max(stats.maxTemps, fs.readdirSync(dir).filter(isTempLeftover).length)
    if (i % reopenEvery === reopenEvery - 1) await openAndCheck(dir, last, stats, false)
  }
  await openAndCheck(dir, last, stats, true)
  stats.finalRevisions.push(last)
  fs.rmSync(path.dirname(dir), { recursive: true, force: true })
}

/** SIGKILL the store's crash writer `kills` times over `lanes` folders in parallel. */
export async function runStoreCrashes(opts: { kills: number; lanes?: number; reopenEvery?: number }): Promise<StoreCrashStats> {
  const lanes = Math.max(1, Math.min(opts.lanes ?? 2, opts.kills))
  const stats: StoreCrashStats = { kills: 0, corrupt: 0, regressions: 0, badReopens: 0, reopens: 0, maxTemps: 0, finalRevisions: [], problems: [] }
  const per = Array.from({ length: lanes }, (_, i) => Math.floor(opts.kills / lanes) + (i < opts.kills % lanes ? 1 : 0))
  await Promise.all(per.map((k) => storeLane(k, opts.reopenEvery ?? 25, stats)))
  return stats
}

export function storeLine(prefix: string, s: StoreCrashStats): string {
  return `${prefix}: kills=${s.kills} corrupt=${s.corrupt} regressions=${s.regressions} bad_reopens=${s.badReopens} reopens=${s.reopens} max_temp_files_between_loads=${s.maxTemps} final_revisions=${s.finalRevisions.join(',')}`
}

// ── delivery ───────────────────────────────────────────────────────────────────────────────────

export interface DeliveryCrashStats {
  /** Runs that ended in a SIGKILL while sending. */
  runs: number
  acknowledged: number
  deliveredIds: number
  /** Acknowledged messages found in no target Session log. */
  lost: number
  /** Delivery ids found more than once across all Session logs. */
  duplicated: number
  /** Acknowledged messages found in a Session that is not one of the targets' own chats. */
  misplaced: number
  /** Deliveries still pending after the final recovery. */
  pendingLeft: number
  /** Delivered messages that want their answer back (`reply_to: sender`), over all lanes. */
  repliesExpected: number
  /** Of those, messages with no reply in the sender's log, and with more than one. */
  repliesLost: number
  repliesDuplicated: number
  recovery: { delivered: number; redriven: number; sent: number; discarded: number; replied: number }
  problems: string[]
}

/** When a sending child is killed: `ms` after the line `after` ('started', or its first 'ack'). */
interface KillPoint {
  after: 'started' | 'ack'
  ms: number
}

function deliveryChild(home: string, mode: string, run: number, kill?: KillPoint): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [DELIVERY_CHILD, home, mode, String(run)], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: string[] = []
    let buf = ''
    let err = ''
    let armed = false
    p.stdout.on('data', (d: Buffer) => {
      buf += d
      const parts = buf.split('\n')
      buf = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        if (kill && !armed && (kill.after === 'started' ? line === 'started' : line.startsWith('ack '))) {
          armed = true
          setTimeout(() => p.kill('SIGKILL'), kill.ms)
        }
      }
    })
    p.stderr.on('data', (d) => {
      err += d
    })
    p.once('exit', (code, signal) => {
      if (signal === 'SIGKILL' || code === 0) resolve({ lines, killed: signal === 'SIGKILL' })
      else reject(new Error(`child ${mode} exited ${code}: ${err}`))
    })
  })
}

function sessionLogs(home: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name === 'session.jsonl') found.set(path.basename(dir), fs.readFileSync(p, 'utf8').split('\n'))
    }
  }
  // No sessions folder: nothing was ever written to a Session log (then every acknowledged message is lost).
  if (fs.existsSync(path.join(home, 'sessions'))) walk(path.join(home, 'sessions'))
  return found
}

interface LoggedRelay {
  sessionId: string
  type?: string
  replyTo?: string
  answers?: string
}

/** deliveryId → where its user/message is logged (once per occurrence), with its source's type and reply fields. */
function deliveredIn(home: string): Map<string, LoggedRelay[]> {
  const seen = new Map<string, LoggedRelay[]>()
  for (const [sessionId, lines] of sessionLogs(home)) {
    for (const line of lines) {
      if (!line.includes('"user/message"')) continue
      let e: { type?: string; data?: { source?: { deliveryId?: string; type?: string; replyTo?: string; answers?: string } } }
      try {
        e = JSON.parse(line)
      } catch {
        continue
      }
      const source = e.type === 'user/message' ? e.data?.source : undefined
      if (source?.deliveryId)
        seen.set(source.deliveryId, [
          ...(seen.get(source.deliveryId) ?? []),
          { sessionId, type: source.type, replyTo: source.replyTo, answers: source.answers },
        ])
    }
  }
  return seen
}

async function deliveryLane(runs: number, stats: DeliveryCrashStats) {
  const home = tempDir('bot-delivery-crash-')
  await deliveryChild(home, 'setup', 0)
  const acked = new Set<string>()
  for (let run = 1; run <= runs; run++) {
    let result: { lines: string[]; killed: boolean }
    try {
      // Every other run is killed only after its first acknowledged message, so the runs prove
      // something however slow the machine is; the others may die before any (at start-up).
      result = await deliveryChild(home, 'send', run, { after: run % 2 ? 'started' : 'ack', ms: 20 + Math.random() * 300 })
    } catch (error) {
      stats.problems.push(`run ${run}: ${(error as Error).message.slice(0, 300)}`)
      continue
    }
    const { lines, killed } = result
    if (killed) stats.runs++
    for (const l of lines) {
      if (l.startsWith('ack ')) acked.add(l.slice(4))
      if (l.startsWith('recovered ')) {
        for (const [k, v] of Object.entries(JSON.parse(l.slice(10)) ?? {})) {
          if (k in stats.recovery) stats.recovery[k as keyof DeliveryCrashStats['recovery']] += v as number
        }
      }
    }
  }
  const { lines } = await deliveryChild(home, 'final', runs + 1).catch((error: Error) => {
    stats.problems.push(`final run: ${error.message.slice(0, 300)}`)
    return { lines: [] as string[] }
  })
  const finalLine = lines.find((l) => l.startsWith('final '))
  if (!finalLine) {
    stats.problems.push(`${home}: the final run printed no summary`)
    return
  }
  const final = JSON.parse(finalLine.slice(6)) as { pending: string[]; total: number; sessions: Record<string, string[]> }
  const seen = deliveredIn(home)
  stats.acknowledged += acked.size
  stats.pendingLeft += final.pending.length
  if (final.pending.length) stats.problems.push(`pending after recovery: ${final.pending.join(', ')}`)
  const targets = new Set([...(final.sessions.Ada ?? []), ...(final.sessions.Bob ?? [])])
  for (const id of acked) {
    const where = seen.get(id) ?? []
    if (where.length === 0) {
      stats.lost++
      stats.problems.push(`acknowledged ${id} is in no Session log`)
    } else if (!targets.has(where[0]!.sessionId)) {
      stats.misplaced++
      stats.problems.push(`acknowledged ${id} landed in ${where[0]!.sessionId}, not a target's chat`)
    }
  }
  const replies = new Map<string, number>()
  const mainChat = new Set(final.sessions.Main ?? [])
  for (const [id, where] of seen) {
    stats.deliveredIds++
    if (where.length > 1) {
      stats.duplicated++
      stats.problems.push(`delivery ${id} appears ${where.length} times (${where.map((w) => w.sessionId).join(', ')})`)
    }
    const reply = where[0]!
    if (reply.type === 'reply' && reply.answers && mainChat.has(reply.sessionId)) replies.set(reply.answers, (replies.get(reply.answers) ?? 0) + where.length)
  }
  // Every message that reached its target wanting its answer back got exactly one reply.
  for (const [id, where] of seen) {
    if (where[0]!.type !== 'message' || where[0]!.replyTo !== 'sender') continue
    stats.repliesExpected++
    const n = replies.get(id) ?? 0
    if (n === 0) {
      stats.repliesLost++
      stats.problems.push(`message ${id} wanted its answer back and got no reply`)
    } else if (n > 1) {
      stats.repliesDuplicated++
      stats.problems.push(`message ${id} got ${n} replies`)
    }
  }
  fs.rmSync(home, { recursive: true, force: true })
}

/** Kill the delivery child `runs` times while it sends, over `lanes` homes in parallel. */
export async function runDeliveryCrashes(opts: { runs: number; lanes?: number }): Promise<DeliveryCrashStats> {
  const lanes = Math.max(1, Math.min(opts.lanes ?? 2, opts.runs))
  const stats: DeliveryCrashStats = {
    runs: 0,
    acknowledged: 0,
    deliveredIds: 0,
    lost: 0,
    duplicated: 0,
    misplaced: 0,
    pendingLeft: 0,
    repliesExpected: 0,
    repliesLost: 0,
    repliesDuplicated: 0,
    recovery: { delivered: 0, redriven: 0, sent: 0, discarded: 0, replied: 0 },
    problems: [],
  }
  const per = Array.from({ length: lanes }, (_, i) => Math.floor(opts.runs / lanes) + (i < opts.runs % lanes ? 1 : 0))
  await Promise.all(per.map((r) => deliveryLane(r, stats)))
  return stats
}

export function deliveryLine(prefix: string, s: DeliveryCrashStats): string {
  return `${prefix}: runs=${s.runs} lost=${s.lost} duplicated=${s.duplicated} misplaced=${s.misplaced} pending_left=${s.pendingLeft} acknowledged=${s.acknowledged} delivered_ids=${s.deliveredIds} replies_expected=${s.repliesExpected} replies_lost=${s.repliesLost} replies_duplicated=${s.repliesDuplicated} recovery_marked_delivered=${s.recovery.delivered} recovery_redriven=${s.recovery.redriven} recovery_resent=${s.recovery.sent} recovery_replied=${s.recovery.replied}`
}
