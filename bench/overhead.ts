// bench/overhead — what a Bot pays on every request, on real DSH Web: the packed bundle installed
// with `dsh plugin add`, the `dsh` CLI serving DSH Web, the scripted model server (it only answers
// "ok"). For each case, the first loop request of a fresh Session after the same one-line prompt,
// counted as JSON characters of what went on the wire: the system prompt, the tool list and the
// other messages (`bench/lib/wire.ts`). Cases, side by side on one DSH Web:
//   plain   a plain DSH Web chat (no team text, no team tools)
//   main    the Main Bot's own chat
//   bot     a non-Main Bot's own chat
//   member  a group member's Session (a non-admin member of a group without an admin: the
//           person's post reaches every member, the first speaker's request is counted)
// Ratios to plain, tool counts and schema characters for each. The team section (the plugin's
// identity and team text in the system prompt) is counted in the Main Bot's first request of a
// fresh part with 1, 10 and 50 Bots on the team.
// The plain request's size is saved for `bench rooms` and `bench memory` (`bench/lib/plain-base.ts`).
// Run: node bench/overhead.ts [team sizes, default 1,10,50]   (BENCH_OVERHEAD_TARBALL=<tgz> skips the
// build; BENCH_DUMP=<dir> writes the bodies; BENCH_PLAIN_FILE=<file> saves the plain size elsewhere)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { buildAndPack } from '../scripts/pack.ts'
import type { RecordedRequest } from '../scripts/scripted-model/format.ts'
import { startScriptedServer } from '../scripts/scripted-model/server.ts'
import { pairWithTerminalCode } from '../tests/support/e2e-pairing.ts'
import { answeredLastPrompt, api, installBundle, makeHome, startWeb, untilEvents, untilTeamReady, type WebProcess } from '../tests/support/e2e.ts'
import { savePlainBase } from './lib/plain-base.ts'
import { teamSectionChars, wireChars, type WireChars } from './lib/wire.ts'

const PROMPT = 'What does the build script in this folder do?'
const SIZES = (process.argv[2] ?? '1,10,50').split(',').map(Number)
if (SIZES[0] !== 1 || SIZES.length !== 3 || !SIZES.every((n, i) => Number.isInteger(n) && (i === 0 || n > SIZES[i - 1]! + 3)))
  throw new Error('usage: node bench/overhead.ts [1,<n>,<m>] (increasing, each more than 3 above the last)')

const bodies = new Map<RecordedRequest, Record<string, unknown>>()
const started: { stop(): Promise<void> }[] = []
let base: string | undefined
try {
  const tarball = process.env.BENCH_OVERHEAD_TARBALL || buildAndPack().tarball
  const home = makeHome('bench-overhead')
  base = dirname(home.home)
  await installBundle('web', tarball, home)
  writeFileSync(join(home.home, 'profiles', 'web', 'cordis.patch.yml'), `- id: bot-team\n  config:\n    team:\n      maxBots: ${Math.max(...SIZES) + 5}\n`)
  const model = await startScriptedServer({ fallback: { text: 'ok' } }, { onWire: (body, rec) => bodies.set(rec, body) })
  started.push({ stop: () => model.close() })
  const web: WebProcess = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
  started.push(web)
  await untilTeamReady(web.url)
  const token = await pairWithTerminalCode(web)
  const team = async (path: string, method = 'GET', body?: unknown): Promise<any> => {
    const res = await fetch(`${web.url}/bot-team/api${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-bot-team-pairing': token },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  const view = () => team('/team')
  /** Prompt a Session and wait for its answer; the first loop request of it since `from`. */
  const first = async (sessionId: string, from = 0): Promise<{ req: RecordedRequest; chars: WireChars }> => {
    await api(web.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: PROMPT }] })
    await untilEvents(web.url, sessionId, answeredLastPrompt, 'the answer')
    return firstOf(sessionId, from)
  }
  const firstOf = (sessionId: string, from = 0) => {
    const req = model.model
      .loopRequests()
      .filter((r) => r.index >= from)
      .find((r) => r.sessionId === sessionId)
    if (!req) throw new Error(`no loop request of ${sessionId}`)
    return { req, chars: wireChars(bodies.get(req)!) }
  }
  let bots = 1
  const grow = async (to: number) => {
    for (; bots < to; bots++) await team('/bots', 'POST', { name: `Bot${String(bots).padStart(2, '0')}`, role: 'Engineer' })
  }
  const mainOf = async () => (await view()).bots.find((b: any) => b.main)

  // plain and Main first, while the team has one Bot.
  const plainSession = (await api(web.url, 'session.create', { cwd: home.cwd })).sessionId as string
  const plain = await first(plainSession)
  const main = await first((await mainOf()).chatSessionId)
  const sections: number[] = [teamSectionChars(main.req.system, plain.req.system)]
  // A non-Main Bot, then a group of two Bots without an admin.
  await team('/bots', 'POST', { name: 'Ada', role: 'Reviewer' })
  await team('/bots', 'POST', { name: 'Bob', role: 'Engineer' })
  await team('/bots', 'POST', { name: 'Cy', role: 'Engineer' })
  bots += 3
  const ada = (await view()).bots.find((b: any) => b.name === 'Ada')
  const bot = await first(ada.chatSessionId)
  await team('/groups', 'POST', { name: 'Review', members: ['Bob', 'Cy'] })
  const room = (await view()).groups.find((g: any) => g.name === 'Review')
  const before = model.model.requests.length
  await api(web.url, 'session.prompt', { sessionId: room.roomSessionId, mode: 'queue', content: [{ type: 'text', text: PROMPT }] })
  await untilEvents(web.url, room.roomSessionId, answeredLastPrompt, 'the room round')
  const state = JSON.parse(readFileSync(join(home.home, 'bot', 'state.json'), 'utf8'))
  const bob = Object.values(state.bots as Record<string, any>).find((b) => b.name === 'Bob')
  const member = firstOf(state.groups[room.id].memberSessions[bob.id], before)
  // The team section in a fresh part of the Main Bot at 10 and 50 Bots.
  for (const size of SIZES.slice(1)) {
    await grow(size)
    const m = await mainOf()
    const from = model.model.requests.length
    await team(`/bots/${m.id}/new-part`, 'POST', {})
    const fresh = await first((await mainOf()).chatSessionId, from)
    sections.push(teamSectionChars(fresh.req.system, plain.req.system))
  }

  if (process.env.BENCH_DUMP) {
    mkdirSync(process.env.BENCH_DUMP, { recursive: true })
    for (const [name, c] of Object.entries({ plain, main, bot, member }))
      writeFileSync(join(process.env.BENCH_DUMP, `${name}.json`), JSON.stringify(bodies.get(c.req), null, 1))
  }
  savePlainBase({ chars: plain.chars.total, system: plain.chars.system, tools: plain.chars.tools, messages: plain.chars.messages })
  const r = (c: { chars: WireChars }) => (c.chars.total / plain.chars.total).toFixed(3)
  const teamTools = (c: { req: RecordedRequest }) => c.req.toolNames.filter((n) => !plain.req.toolNames.includes(n))
  const detail = (name: string, c: { req: RecordedRequest; chars: WireChars }) =>
    `${name}: chars=${c.chars.total} system=${c.chars.system} tools=${c.req.toolNames.length} schema_chars=${c.chars.tools} team_tools=${teamTools(c).length}[${teamTools(c).join(',')}] messages=${c.chars.messages}`
  console.log(
    `bench overhead: bot/plain=${r(bot)} main/plain=${r(main)} member/plain=${r(member)} plain_chars=${plain.chars.total} team_section_${SIZES.join('/')}=${sections.join('/')} team_section_${SIZES[2]}/1=${(sections[2]! / sections[0]!).toFixed(2)}`,
  )
  for (const [name, c] of Object.entries({ plain, main, bot, member })) console.log(`  ${detail(name, c)}`)
} finally {
  for (const s of started.reverse()) await s.stop().catch(() => {})
  if (base) rmSync(base, { recursive: true, force: true })
}
