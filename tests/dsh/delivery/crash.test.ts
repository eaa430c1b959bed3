// A child process running real DSH in-process sends messages between Bots and is SIGKILLed at
// random moments, 50+ times; after restarts on the same home, every acknowledged message is exactly
// one `user/message` in its target's Session log, and no delivery id appears twice anywhere.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const CHILD = fileURLToPath(new URL('./fixtures/delivery-child.ts', import.meta.url))
const RUNS = 52
const LANES = 2

function child(home: string, mode: string, run: number, killAfterMs?: number): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHILD, home, mode, String(run)], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: string[] = []
    let buf = ''
    let err = ''
    p.stdout.on('data', (d: Buffer) => {
      buf += d
      const parts = buf.split('\n')
      buf = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        if (line === 'started' && killAfterMs !== undefined) setTimeout(() => p.kill('SIGKILL'), killAfterMs)
      }
    })
    p.stderr.on('data', (d) => { err += d })
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
  walk(path.join(home, 'sessions'))
  return found
}

/** deliveryId → Session ids whose log holds a user/message with it (once per occurrence). */
function deliveredIn(home: string): Map<string, string[]> {
  const seen = new Map<string, string[]>()
  for (const [sessionId, lines] of sessionLogs(home)) {
    for (const line of lines) {
      if (!line.includes('"user/message"')) continue
      let e: { type?: string; data?: { source?: { deliveryId?: string } } }
      try { e = JSON.parse(line) } catch { continue }
      const id = e.type === 'user/message' ? e.data?.source?.deliveryId : undefined
      if (id) seen.set(id, [...(seen.get(id) ?? []), sessionId])
    }
  }
  return seen
}

async function lane(runs: number) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bot-delivery-crash-'))
  await child(home, 'setup', 0)
  const acked = new Map<string, number>()
  const recovery = { delivered: 0, redriven: 0, sent: 0, discarded: 0 }
  let kills = 0
  for (let run = 1; run <= runs; run++) {
    const { lines, killed } = await child(home, 'send', run, 20 + Math.random() * 300)
    if (killed) kills++
    for (const l of lines) {
      if (l.startsWith('ack ')) acked.set(l.slice(4), run)
      if (l.startsWith('recovered ')) for (const [k, v] of Object.entries(JSON.parse(l.slice(10)) ?? {})) recovery[k as keyof typeof recovery] += v as number
    }
  }
  const { lines } = await child(home, 'final', runs + 1)
  const final = JSON.parse(lines.find((l) => l.startsWith('final '))!.slice(6)) as { pending: string[]; total: number; sessions: Record<string, string[]> }
  const seen = deliveredIn(home)
  return { home, acked, kills, final, seen, recovery }
}

describe('delivery crash safety', () => {
  it(`${RUNS} SIGKILLs while sending: every acknowledged message is delivered exactly once, none twice`, async () => {
    const per = Math.ceil(RUNS / LANES)
    const lanes = await Promise.all(Array.from({ length: LANES }, () => lane(per)))
    let kills = 0, acked = 0, lost = 0, duplicated = 0, delivered = 0
    const recovery = { delivered: 0, redriven: 0, sent: 0, discarded: 0 }
    for (const l of lanes) {
      for (const k of Object.keys(recovery) as (keyof typeof recovery)[]) recovery[k] += l.recovery[k]
      kills += l.kills
      acked += l.acked.size
      expect(l.final.pending).toEqual([])
      const targets = new Set([...l.final.sessions.Ada!, ...l.final.sessions.Bob!])
      for (const id of l.acked.keys()) {
        const where = l.seen.get(id) ?? []
        if (where.length === 0) lost++
        expect(where, `acknowledged ${id}`).toHaveLength(1)
        expect(targets.has(where[0]!)).toBe(true)
      }
      for (const [id, where] of l.seen) {
        delivered++
        if (where.length > 1) duplicated++
        expect(where, `delivery ${id}`).toHaveLength(1)
      }
      fs.rmSync(l.home, { recursive: true, force: true })
    }
    expect(kills).toBeGreaterThanOrEqual(50)
    expect(acked).toBeGreaterThan(25)
    console.log(`delivery crash: runs=${kills} acknowledged=${acked} delivered_ids=${delivered} lost=${lost} duplicated=${duplicated} recovery_marked_delivered=${recovery.delivered} recovery_redriven=${recovery.redriven} recovery_resent=${recovery.sent}`)
  }, 600_000)
})
