// bench/archive — what a `read_own_chat` search costs at a million archived lines, side by side
// with the naive design (issue 11).
//
// Corpus (seeded, constants below): BOTS Bots, each with PARTS own-chat parts, LINES lines in all.
// Each Bot's log is a run of DSH-shaped events — user message, assistant answer, and in
// TOOL_SHARE of the exchanges a tool call and its result — whose text is drawn from a synthetic
// vocabulary of VOCAB words with Zipf(ZIPF_S) frequencies; line lengths: LONG_SHARE long
// (80–400 words), MEDIUM_SHARE medium (15–60), the rest short (3–15); CHINESE_SHARE of the lines
// are Chinese (Zipf over CJK_CHARS characters, words of 1–4 characters).
//
// Ours: the archive's own code. The build feeds the events through `ingest` (lines.ts → index-db.ts,
// the path catch-up uses) in slices of SLICE events per Session, Bots interleaved; build_lines_per_s
// counts only that time. A search is the whole handler the tool runs: the catch-up check
// (`CatchUp.ensure`, the current part live, older parts cold) and `readOwnChat` with formatting.
// Naive: one FTS5 trigram table for every Bot, the Session an UNINDEXED column, `ORDER BY rank
// LIMIT 20`; terms under three characters as LIKE (trigram cannot match them); "around" and
// "latest" by the UNINDEXED columns; the per-term fallback when nothing has all terms.
// Both run the same QUERY mix for Bot 0, ROUNDS times after one warm-up round; p95 is over all
// calls (the heap is collected once after the build). bytes_per_text_byte: database + WAL after wal_checkpoint(TRUNCATE), over the UTF-8 bytes
// of the indexed line texts.
//
// Run: node bench/archive.ts [lines]   (default 1,000,000; e.g. 100000 for a quick run)
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CatchUp, ingest, type ArchiveSources, type LiveLog } from '../src/archive/catch-up.ts'
import type { LogEvent } from '../src/core/log-lines.ts'
import { ArchiveIndex } from '../src/archive/index-db.ts'
import { lineOf } from '../src/core/log-lines.ts'
import { partitionKeyOfBot, readOwnChat, type OwnChatArgs, type PartInfo } from '../src/archive/reader.ts'
import { loadSqlite } from '../src/core/sqlite.ts'
import { mulberry32 } from './lib/random.ts'

const LINES = Number(process.argv[2] ?? 1_000_000)
const SEED = 11
const BOTS = 20
const PARTS = 2
const VOCAB = 30_000
const ZIPF_S = 1.1
const CJK_CHARS = 3_000
const CHINESE_SHARE = 0.1
const LONG_SHARE = 0.03
const MEDIUM_SHARE = 0.25
const TOOL_SHARE = 0.1
const SLICE = 500
const ROUNDS = 10

const random = mulberry32(SEED)
const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1))

function zipf(n: number, s: number): () => number {
  const cdf = new Float64Array(n)
  let sum = 0
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1) ** s
  return () => {
    const x = random() * sum
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cdf[mid]! < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}
const SYLLABLES = [
  'ka',
  'to',
  'ri',
  'mon',
  'sel',
  'da',
  'ven',
  'lo',
  'pra',
  'tes',
  'ni',
  'qua',
  'ber',
  'fi',
  'gor',
  'hu',
  'jan',
  'ki',
  'lum',
  'mer',
  'no',
  'pel',
  'ras',
  'sto',
  'tri',
  'ul',
  'vos',
  'wen',
  'xi',
  'yar',
  'zen',
  'bra',
  'cor',
  'dre',
  'eli',
  'fon',
  'gul',
  'har',
  'ist',
  'jor',
]
/** The word of a frequency rank (0 = most common): rank written in base 40 over syllables. */
function word(rank: number): string {
  let r = rank
  let w = ''
  do {
    w += SYLLABLES[r % 40]
    r = Math.floor(r / 40)
  } while (r > 0)
  return w
}
const cjkChar = (rank: number) => String.fromCodePoint(0x4e00 + ((rank * 7919) % 20_000))
const nextWord = zipf(VOCAB, ZIPF_S)
const nextChar = zipf(CJK_CHARS, ZIPF_S)
const words = (n: number) => Array.from({ length: n }, () => word(nextWord())).join(' ')
const chinese = (n: number) => {
  let s = ''
  while (s.length < n) {
    const len = int(1, 4)
    for (let i = 0; i < len; i++) s += cjkChar(nextChar())
    if (random() < 0.15) s += '，'
  }
  return s
}
function lineText(): string {
  const r = random()
  const n = r < LONG_SHARE ? int(80, 400) : r < LONG_SHARE + MEDIUM_SHARE ? int(15, 60) : int(3, 15)
  return random() < CHINESE_SHARE ? chinese(n * 2) : words(n)
}

const T0 = Date.UTC(2026, 0, 1)
const message = (text: string) => ({ content: [{ type: 'text', text }], source: { kind: 'user' } })
/** The next events of one Session (an exchange: user, answer, sometimes a tool call + result). */
function exchange(seq: number, time: number): LogEvent[] {
  const out: LogEvent[] = [{ type: 'user/message', seq, time, data: { message: message(lineText()) } }]
  if (random() < TOOL_SHARE) {
    const callId = `c${seq}`
    out.push({ type: 'tool/call', seq: seq + 1, time, data: { callId, name: 'grep', arguments: JSON.stringify({ pattern: word(nextWord()), path: 'src' }) } })
    out.push({
      type: 'tool/result',
      seq: seq + 2,
      time,
      data: { callId, message: { content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: words(int(5, 40)) }] }] } },
    })
  }
  out.push({ type: 'assistant/message', seq: seq + out.length, time: time + 1000, data: { message: { content: [{ type: 'text', text: lineText() }] } } })
  return out
}

// ── build ─────────────────────────────────────────────────────────────────────────────────────
const load = loadSqlite()
if (!load.ok) throw new Error(load.problem.message)
const driver = load.driver
const dir = mkdtempSync(join(tmpdir(), 'bench-archive-'))
const ours = ArchiveIndex.open(driver, join(dir, 'archive.sqlite'), true)!
const naive = driver.open(join(dir, 'naive.sqlite'))
naive.exec(
  "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE VIRTUAL TABLE naive USING fts5(text, session UNINDEXED, seq UNINDEXED, time UNINDEXED, who UNINDEXED, tokenize='trigram')",
)
const naiveInsert = naive.prepare('INSERT INTO naive(text, session, seq, time, who) VALUES (?, ?, ?, ?, ?)')

const sid = (bot: number, part: number) => `session-bot${bot}-part${part}`
const perPart = Math.ceil(LINES / (BOTS * PARTS))
interface SessionGen {
  sid: string
  seq: number
  time: number
  lines: number
  last?: LogEvent
  calls: Map<string, string>
}
const gens: SessionGen[][] = Array.from({ length: BOTS }, (_, b) =>
  Array.from({ length: PARTS }, (_, p) => ({ sid: sid(b, p + 1), seq: 0, time: T0 + p * 86_400_000 * 30, lines: 0, calls: new Map() })),
)
let built = 0
let textBytes = 0
let ourMs = 0
let ourCpuMs = 0
let naiveMs = 0
for (let part = 0; part < PARTS; part++) {
  for (let more = true; more; ) {
    more = false
    for (let b = 0; b < BOTS; b++) {
      const g = gens[b]![part]!
      if (g.lines >= perPart || built >= LINES) continue
      const events: LogEvent[] = []
      while (events.length < SLICE && g.lines < perPart) {
        for (const e of exchange(g.seq, g.time)) {
          events.push(e)
          g.seq++
          g.lines++
        }
        g.time += 60_000
      }
      g.last = events.at(-1)
      const mark = ours.register(g.sid, partitionKeyOfBot(`bot-${b}`), part + 1)
      let t = performance.now()
      const c0 = process.cpuUsage()
      ingest(ours, mark, events, g.calls, false)
      ourMs += performance.now() - t
      const c1 = process.cpuUsage(c0)
      ourCpuMs += (c1.user + c1.system) / 1000
      // Naive: the same lines (same line maker), its own table.
      const lines = events.flatMap((e) => lineOf(e, new Map()) ?? [])
      t = performance.now()
      naive.exec('BEGIN')
      for (const l of lines) naiveInsert.run(l.text, g.sid, l.seq, l.time, l.who)
      naive.exec('COMMIT')
      naiveMs += performance.now() - t
      for (const l of lines) textBytes += Buffer.byteLength(l.text)
      built += lines.length
      more = true
    }
  }
}
const size = (p: string) => statSync(p, { throwIfNoEntry: false })?.size ?? 0
ours.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
const ourBytes = size(ours.path) + size(`${ours.path}-wal`)

// ── the handler, as the service runs it ───────────────────────────────────────────────────────
const BOT = 0
const parts: PartInfo[] = gens[BOT]!.map((g, i) => ({ sid: g.sid, part: i + 1 }))
const current = gens[BOT]!.at(-1)!
const live: LiveLog = { seq: current.seq, at: (seq) => (seq === current.seq - 1 ? current.last : undefined) }
const sources: ArchiveSources = {
  place: (s) => {
    const g = gens[BOT]!.findIndex((x) => x.sid === s)
    return g < 0 ? undefined : { partition: partitionKeyOfBot(`bot-${BOT}`), part: g + 1, room: false }
  },
  all: () => parts.map((p) => p.sid),
  live: (s) => (s === current.sid ? live : undefined),
  readFrom: async (s, from) => {
    const g = gens[BOT]!.find((x) => x.sid === s)!
    return g.last && g.last.seq >= from ? [g.last] : []
  },
}
const catchUp = new CatchUp(ours, sources)
async function handler(args: OwnChatArgs): Promise<string> {
  const level = await catchUp.ensure(parts.map((p) => p.sid))
  return readOwnChat(ours, { botId: `bot-${BOT}`, args, parts, catchingUp: !level })
}

// A Chinese word of a given length that occurs: built from the commonest characters.
const cn = (n: number, from: number) => Array.from({ length: n }, (_, i) => cjkChar(from + i)).join('')
function pickChinese(n: number): string {
  const mark = ours.mark(parts[0]!.sid)!
  for (const line of ours.walk(mark.id, 0, 1, 500)) {
    const m = /[\u4e00-\u9fa5]{4,}/.exec(line.text)
    if (m) return m[0].slice(0, n)
  }
  return cn(n, 0)
}
const cn2 = pickChinese(2)
const cn4 = pickChinese(4)
const QUERIES: OwnChatArgs[] = [
  { query: word(3) }, // very common
  { query: word(300) }, // mid
  { query: word(20_000) }, // rare
  { query: SYLLABLES[7]! }, // a two-letter word
  { query: `${word(5)} ${word(15_000)}` }, // common + rare
  { query: `${word(1)} ${word(8)}` }, // two common
  { query: `${word(10)} ${word(200)} ${word(2_000)}` }, // three
  { query: `${word(25_000)} ${word(26_000)} ${word(27_000)}` }, // three rare: likely no line has all
  { query: `"${word(2)} ${word(4)}"` }, // a phrase
  { query: cn2 }, // two Chinese characters
  { query: cn4 }, // four Chinese characters
  { around: `part 2 #${Math.floor(current.seq / 2)}` },
  { around: `part 1 #${Math.floor(gens[BOT]![0]!.seq / 3)}` },
  {}, // latest
]

// ── naive handler ─────────────────────────────────────────────────────────────────────────────
const sessions = JSON.stringify(parts.map((p) => p.sid))
const naiveRender = (rows: unknown[]) =>
  (rows as { text: string; seq: number; time: number }[])
    .map((r) => `[#${r.seq} · ${new Date(r.time).toISOString().slice(5, 16)}] ${r.text.slice(0, 400)}`)
    .join('\n')
function naiveSearch(query: string): string {
  const terms = [...new Set(query.toLowerCase().replace(/"/g, ' ').split(/\s+/).filter(Boolean))].slice(0, 6)
  const run = (ts: string[], limit: number) => {
    const match = ts.filter((t) => [...t].length >= 3)
    const like = ts.filter((t) => [...t].length < 3)
    const where = [`session IN (SELECT value FROM json_each(?))`, ...like.map(() => 'text LIKE ?')]
    const params: unknown[] = [sessions, ...like.map((t) => `%${t}%`)]
    if (match.length) {
      return naive
        .prepare(`SELECT text, seq, time FROM naive WHERE naive MATCH ? AND ${where.join(' AND ')} ORDER BY rank LIMIT ${limit}`)
        .all(match.map((t) => `"${t}"`).join(' '), ...params)
    }
    return naive.prepare(`SELECT text, seq, time FROM naive WHERE ${where.join(' AND ')} ORDER BY time DESC LIMIT ${limit}`).all(...params)
  }
  const all = run(terms, 20)
  if (all.length || terms.length < 2) return naiveRender(all)
  return naiveRender(terms.flatMap((t) => run([t], 50)).slice(0, 20))
}
function naiveHandler(args: OwnChatArgs): string {
  if (args.query !== undefined) return naiveSearch(args.query)
  if (args.around !== undefined) {
    const [, part, seq] = /part (\d+) #(\d+)/.exec(args.around)!
    const s = parts[Number(part) - 1]!.sid
    return naiveRender(
      naive.prepare('SELECT text, seq, time FROM naive WHERE session = ? AND seq BETWEEN ? AND ? ORDER BY seq').all(s, Number(seq) - 6, Number(seq) + 7),
    )
  }
  return naiveRender(
    naive.prepare('SELECT text, seq, time FROM naive WHERE session IN (SELECT value FROM json_each(?)) ORDER BY time DESC LIMIT 12').all(sessions),
  )
}

// ── measure, side by side ─────────────────────────────────────────────────────────────────────
// The build leaves a heap full of garbage; collect it once so both designs are measured warm and
// neither pays for the build's garbage collection.
setFlagsFromString('--expose-gc')
;(runInNewContext('gc') as () => void)()
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1]!
const ourTimes: number[] = []
const naiveTimes: number[] = []
/** CPU time of the same calls (verbose only): on a loaded machine wall time includes waiting for a core. */
const ourCpu: number[] = []
const naiveCpu: number[] = []
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
for (let round = 0; round <= ROUNDS; round++) {
  for (const args of QUERIES) {
    let c = cpu()
    let t = performance.now()
    const a = await handler(args)
    const ourT = performance.now() - t
    const ourC = cpu() - c
    c = cpu()
    t = performance.now()
    const b = naiveHandler(args)
    const naiveT = performance.now() - t
    const naiveC = cpu() - c
    if (round === 0) {
      if (process.env.BENCH_VERBOSE) console.log(JSON.stringify(args), ourT.toFixed(2), naiveT.toFixed(2), a.split('\n')[0], '|', b.split('\n').length)
      continue // warm-up
    }
    ourTimes.push(ourT)
    naiveTimes.push(naiveT)
    ourCpu.push(ourC)
    naiveCpu.push(naiveC)
  }
}
if (process.env.BENCH_VERBOSE) {
  const per = QUERIES.map(
    (q, i) =>
      `${JSON.stringify(q)} wall ${p95(ourTimes.filter((_, j) => j % QUERIES.length === i)).toFixed(2)} cpu ${p95(ourCpu.filter((_, j) => j % QUERIES.length === i)).toFixed(2)}`,
  )
  console.log(per.join('\n'))
  const rows = ours.db
    .prepare(
      "SELECT CASE WHEN name LIKE 'fts%' THEN substr(name, instr(substr(name, 5), '_') + 5) ELSE name END AS n, sum(pgsize) AS s FROM dbstat GROUP BY n ORDER BY s DESC LIMIT 5",
    )
    .all() as { n: string; s: number }[]
  console.log(rows.map((r) => `${r.n}=${(r.s / textBytes).toFixed(2)}`).join(' '))
  console.log(
    `cpu time p95: ours ${p95(ourCpu).toFixed(2)} ms, naive ${p95(naiveCpu).toFixed(2)} ms; load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`,
  )
}
const ourP95 = p95(ourTimes)
const naiveP95 = p95(naiveTimes)
const f = (x: number, d = 2) => x.toFixed(d)
if (process.env.BENCH_VERBOSE) console.log(`build by cpu time: ${f(built / (ourCpuMs / 1000), 0)} lines/s`)
if (process.env.BENCH_VERBOSE)
  console.log(`naive build ${f(built / (naiveMs / 1000), 0)} lines/s; ours ${f(ourBytes / 1e6, 1)} MB for ${f(textBytes / 1e6, 1)} MB text`)
console.log(
  `bench archive: lines=${built} p95_ms=${f(ourP95)} naive_p95_ms=${f(naiveP95)} speedup=${f(naiveP95 / ourP95, 1)} build_lines_per_s=${f(built / (ourMs / 1000), 0)} bytes_per_text_byte=${f(ourBytes / textBytes)}`,
)
catchUp.stop()
ours.close()
naive.close()
rmSync(dir, { recursive: true, force: true })
