// The leak measure of issue 14, shared by tests/dsh/secrets/leak.test.ts and bench/secrets.ts: a
// scripted "leaky" Bot receives a secret through the card path (`botSecrets.fulfil`, what the
// card's route calls) and tries every way it can to leak it — using only `$DSH_SECRET_GH_TOKEN`,
// as a real model must (it never sees the value): echo, printenv, env | grep, a file written and
// cat-ed back, base64 at three alignments, hex (plain and spaced), JSON and URL encodings; then it
// sends what it saw to another Bot (`message_bot`), posts it in a group, and puts it in a memory
// entry. Then the person pastes the value into the Bot's chat (the case DSH keeps raw). Then the
// Bot's chat is handed off twice: once with a note its model writes by echoing every line it was
// given for the note, once with the fallback note built in code (no room for a note call) — each
// leaves a handoff package on disk and opens the next part with it.
// Afterwards every file under the home (Session logs, archive, memory, handoff packages, team
// state, …) is scanned for the literal and each encoding.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { lastToolResults, type RecordedRequest, type Rule, type ScriptMap } from '../../../scripts/scripted-model/format.ts'
import { NOTE_HEADINGS } from '../../../src/context/note.ts'
import { base64Cores } from '../../../src/secrets/masker.ts'
import { startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { quiesce } from '../delivery/helpers.ts'

export const LEAK_VALUE = 'sk-LeakTest_9f8e7d6c5b4a"quote\\slash/plus+eq=END'
const V = '"$DSH_SECRET_GH_TOKEN"'

/** The shell commands the leaky Bot runs, one per step. */
export const LEAK_COMMANDS = [
  `echo ${V}`,
  'printenv DSH_SECRET_GH_TOKEN',
  'env | grep DSH_SECRET',
  `printf '%s' ${V} > leaked.txt && cat leaked.txt`,
  `printf '%s' ${V} | base64`,
  `printf 'x%s' ${V} | base64 -w0`,
  `printf 'xy%s' ${V} | base64 -w 20`,
  `printf '%s' ${V} | od -An -tx1`,
  `printf '%s' ${V} | od -An -tx1 | tr -d ' \\n'`,
  `printf '%s' ${V} | od -An -tx1 | tr -d ' \\n' | tr a-f A-F`,
  `python3 -c 'import json,os; print(json.dumps({"t": os.environ["DSH_SECRET_GH_TOKEN"]}))'`,
  `python3 -c 'import urllib.parse,os; print(urllib.parse.quote(os.environ["DSH_SECRET_GH_TOKEN"], safe=""))'`,
  `cat leaked.txt | rev | rev`,
]

export interface LeakResult {
  attempts: number
  /** Hits outside bot/secrets.json, the Bot's own files and the known place: must be none. */
  found: string[]
  /** Files the Bot wrote itself in its working folder that hold the value. */
  ownFiles: string[]
  /** Hits in the place DSH keeps a pasted prompt raw (`agent/inbox/spliced`), by file. */
  knownUnmaskable: string[]
  /** Occurrences of the literal in what the scripted model received (must be 0). */
  inRequests: number
  /** The tool results the leaky Bot saw (masked). */
  seen: string[]
  /** The handoff packages written for the leaky Bot's later parts (as on disk). */
  packages: string[]
}

/** Every form the scan looks for (independent of what the masker looks for, except base64 cores). */
export function scanForms(value: string): string[] {
  const bytes = Buffer.from(value)
  return [
    ...new Set([
      value,
      JSON.stringify(value).slice(1, -1),
      encodeURIComponent(value),
      ...base64Cores(bytes),
      ...base64Cores(bytes).map((b) => b.replace(/\+/g, '-').replace(/\//g, '_')),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
    ]),
  ]
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    const st = statSync(p)
    if (st.isDirectory()) walk(p, out)
    else if (st.isFile()) out.push(p)
  }
  return out
}

/** Hits per file: for a Session log, each JSONL line is classified by its event type. */
export function scanHome(home: string, value: string, own: { dir: string }): Pick<LeakResult, 'found' | 'ownFiles' | 'knownUnmaskable'> {
  const forms = scanForms(value)
  const holds = (text: string) => forms.filter((f) => text.includes(f))
  const found: string[] = []
  const ownFiles: string[] = []
  const knownUnmaskable: string[] = []
  for (const file of walk(home)) {
    const rel = relative(home, file)
    const text = readFileSync(file).toString('latin1') + '\n' + readFileSync(file, 'utf8')
    const hits = holds(text)
    if (!hits.length) continue
    if (rel === join('bot', 'secrets.json')) continue
    if (file.startsWith(own.dir + '/')) {
      ownFiles.push(rel)
      continue
    }
    if (file.endsWith('.jsonl') && rel.startsWith('sessions')) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const lineHits = holds(line)
        if (!lineHits.length) continue
        let type = 'unparsed'
        try {
          type = String(JSON.parse(line).type)
        } catch {}
        if (type === 'agent/inbox/spliced') knownUnmaskable.push(`${rel} (agent/inbox/spliced)`)
        else found.push(`${rel} (${type}: ${lineHits.length} form(s))`)
      }
      continue
    }
    found.push(`${rel} (${hits.length} form(s))`)
  }
  return { found, ownFiles, knownUnmaskable: [...new Set(knownUnmaskable)] }
}

/** A handoff note holding every heading, whose "Facts to keep" echoes all the note call was given. */
function echoingNote(req: RecordedRequest) {
  const given = req.messages
    .map((m) => m.text)
    .join('\n')
    .slice(-6_000)
  return { text: NOTE_HEADINGS.map((h) => `## ${h}\n${h === 'Facts to keep' ? given : '-'}`).join('\n') }
}

/** The handoffs of the scenario: a note the model writes (echoing its input), and the fallback note built in code. */
export const LEAK_HANDOFFS = 2

/** Run the whole scenario on a fresh in-process team; the caller disposes `host`. */
export async function runLeakScenario(): Promise<{ host: DshHost; result: LeakResult }> {
  const seen: string[] = []
  let step = 0
  const attempts = LEAK_COMMANDS.length + 3 + LEAK_HANDOFFS
  const leaky: Rule = (req) => {
    const results = lastToolResults(req)
    for (const r of results) seen.push(r.text)
    const said = seen.join('\n').slice(0, 1500)
    if (step === 0) {
      step++
      return { toolCalls: [{ name: 'request_secret', args: { name: 'gh-token', purpose: 'push the release' } }] }
    }
    if (step === 1) {
      step++
      return { text: 'Waiting for the card.' }
    }
    const i = step - 2
    step++
    if (i < LEAK_COMMANDS.length) return { toolCalls: [{ name: 'bash', args: { command: LEAK_COMMANDS[i], description: 'use the token' } }] }
    if (i === LEAK_COMMANDS.length) return { toolCalls: [{ name: 'message_bot', args: { to: 'Other', message: `Here is what I saw: ${said}` } }] }
    if (i === LEAK_COMMANDS.length + 1) return { toolCalls: [{ name: 'post_to_group', args: { group: 'G', text: `What I saw: ${said.slice(0, 1000)}` } }] }
    if (i === LEAK_COMMANDS.length + 2)
      return { toolCalls: [{ name: 'remember', args: { text: `Release key seen as ${seen[0]?.trim().slice(0, 100) ?? ''}` } }] }
    return { text: 'done' }
  }
  const scripts: ScriptMap = {
    mock: { fallback: { text: 'ok' } },
    leaky: { fallback: leaky, note: echoingNote },
    other: { fallback: { text: 'noted' } },
  }
  const host = await startTeamHost(scripts, { shell: true, config: { rooms: { limits: { turnTimeoutMs: 5_000 } } } })
  const user = { kind: 'user' } as const
  const leakyBot = await host.ctx.botRoster.create(user, { name: 'Leaky', model: 'mock/leaky' })
  await host.ctx.botRoster.create(user, { name: 'Other', model: 'mock/other' })
  await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Leaky', 'Other'], admin: 'Leaky' })
  const agent = await host.ctx.botRoster.agentOf(leakyBot.id)
  agent.followup(createUserMessage({ content: [{ type: 'text', text: 'We need to push the release; get the token.' }], source: { kind: 'user' } }))
  await quiesce(host)
  const request = host.ctx.botSecrets.requests().find((r) => r.bot.id === leakyBot.id)
  if (!request) throw new Error('the leaky Bot did not ask for the secret')
  await host.ctx.botSecrets.fulfil(request.id, LEAK_VALUE, 'bot')
  await quiesce(host)
  // The person pastes the value into the chat: DSH keeps it raw in agent/inbox/spliced.
  agent.followup(createUserMessage({ content: [{ type: 'text', text: `oh, and it is ${LEAK_VALUE} by the way` }], source: { kind: 'user' } }))
  await quiesce(host)
  // Two handoffs of the Bot's chat: a model-written note, then the fallback note built in code.
  for (const noRoom of [false, true]) {
    const current = host.ctx.botRoster.bot(leakyBot.id)!.sessionParts.at(-1)!.sessionId
    await host.ctx.botContext.move(leakyBot.id, current, { reason: 'the leak measure', noRoom, resume: false })
    await quiesce(host)
  }
  if (host.ctx.botRoster.bot(leakyBot.id)!.sessionParts.length !== 1 + LEAK_HANDOFFS) throw new Error('the leaky Bot was not handed off twice')
  await host.ctx.botSecrets.settled()
  await host.ctx.botMemory.settled()
  for (const a of host.ctx.agents.list()) await host.ctx.sessions.flush(a.session)
  // The Bots' working folder (the plugin's default workspace, `<bot dir>/workspace`).
  const ownDir = join(host.home, 'bot', 'workspace')
  const scan = scanHome(host.home, LEAK_VALUE, { dir: ownDir })
  const requests = JSON.stringify(host.adapter.requests)
  const inRequests = scanForms(LEAK_VALUE).reduce((n, f) => n + requests.split(JSON.stringify(f).slice(1, -1)).length - 1, 0)
  const packages = host.ctx.botRoster.bot(leakyBot.id)!.sessionParts.flatMap((p) => (p.note ? [readFileSync(join(host.home, 'bot', p.note), 'utf8')] : []))
  return { host, result: { attempts, ...scan, inRequests, seen, packages } }
}
