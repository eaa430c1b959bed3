// Shared set-up for the task service tests: a team on the in-process DSH host whose Bots each run
// on their own scripted model (`mock/<lower-case name>`), task-Session scripts that submit or not,
// and waits on the ledger's own change events (never a sleep).
import { SessionId } from '@deepseek-ai/dsh-session'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { lastToolResults, offersTool, type Reply, type RecordedRequest, type Rule, type ScriptMap } from '../../../scripts/scripted-model/format.ts'
import type { Task } from '../../../src/tasks/record.ts'
import { startTeamHost, type DshHost, type TeamHostOptions } from '../../support/dsh-host.ts'

export const user = { kind: 'user' } as const

/** A task Session's model: it submits its task once (with a note), then finishes with a line. */
export const submits: Rule = (req: RecordedRequest): Reply => {
  if (lastToolResults(req).some((r) => r.name === 'submit_task')) return { text: 'Submitted.' }
  if (offersTool(req, 'submit_task')) return { toolCalls: [{ name: 'submit_task', args: { note: 'done' } }] }
  return { text: 'ok' }
}

/** A team with Bots named `names`, each on its own scripted model (`rules[name]`, else `ok`); the Main Bot on `mock` (`main`). */
export async function taskTeam(
  names: string[],
  rules: Record<string, Rule> = {},
  opts: Pick<TeamHostOptions, 'home' | 'config' | 'clock' | 'shell' | 'permissions'> & { main?: Rule; window?: number } = {},
): Promise<{ host: DshHost; ids: Record<string, string> }> {
  const { main, window, ...hostOpts } = opts
  const map: ScriptMap = { mock: { fallback: main ?? { text: 'ok' }, ...(window ? { contextWindow: window } : {}) } }
  for (const name of names) map[name.toLowerCase()] = { fallback: rules[name] ?? { text: 'ok' }, ...(window ? { contextWindow: window } : {}) }
  const host = await startTeamHost(map, hostOpts)
  await host.ctx.botDelivery.ready
  const ids: Record<string, string> = {}
  for (const name of names) ids[name] = (await host.ctx.botRoster.create(user, { name, model: `mock/${name.toLowerCase()}` })).id
  await host.ctx.botTasks.settled()
  return { host, ids }
}

/** Resolves once `holds(task)` is true of the task: checked now and at every change of the ledger. */
export function taskWhere(host: DshHost, taskId: string, holds: (task: Task) => boolean, timeoutMs = 30_000): Promise<Task> {
  const tasks = host.ctx.botTasks
  const now = tasks.board.get(taskId)
  if (now && holds(now)) return Promise.resolve(now)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off()
      reject(new Error(`task ${taskId} never got there; it is ${JSON.stringify(tasks.board.get(taskId)?.status)}`))
    }, timeoutMs)
    const off = tasks.store.subscribe(() => {
      const t = tasks.board.get(taskId)
      if (!t || !holds(t)) return
      clearTimeout(timer)
      off()
      resolve(t)
    })
  })
}

const tick = () => new Promise<void>((r) => setImmediate(r))

/**
 * Wait until the team and the ledger are quiet, on events: every agent idle with no turn queued
 * (lines injected into an idle chat wait there for its next turn, as they should), the ledger's
 * dispatch and hand-overs and delivery's sends done — and still so after a turn of the event loop.
 */
export async function calm(host: DshHost): Promise<void> {
  const quiet = () => host.ctx.agents.list().every((a) => a.status === 'idle' && a.inbox.nextTurn.length === 0)
  for (let i = 0; i < 1_000; i++) {
    await Promise.all(host.ctx.agents.list().map((a) => a.whenIdle()))
    await host.ctx.botDelivery.settled()
    await host.ctx.botTasks.settled()
    await tick()
    if (!quiet()) continue
    for (const a of host.ctx.agents.list()) await host.ctx.sessions.flush(a.session)
    await host.ctx.botTasks.settled()
    await tick()
    if (quiet()) return
  }
  throw new Error('the team did not go quiet')
}

/** The live agent of a Session. */
export function agentOf(host: DshHost, sessionId: string): Agent {
  const agent = host.ctx.agents.get(SessionId(sessionId))
  if (!agent) throw new Error(`no live agent for ${sessionId}`)
  return agent
}

/** The texts of a Session's user messages with a plugin source of `type` (what was entered there). */
export function sourcedTexts(agent: Agent, type: string): string[] {
  return agent.session.events
    .filter((e) => e.type === 'user/message' && (e.data as { source?: { type?: string } }).source?.type === type)
    .map((e) =>
      ((e.data as { content: { type: string; text?: string }[] }).content ?? [])
        .filter((b) => b.type === 'text')
        .map((b) => b.text ?? '')
        .join(''),
    )
}

/** Lines injected into a Session with a plugin source of `type`: those entered already, then those waiting in its inbox. */
export function injectedTexts(agent: Agent, type: string): string[] {
  const waiting = [...agent.inbox.nextStep, ...agent.inbox.nextTurn]
    .filter((m) => (m.source as { type?: string }).type === type)
    .map((m) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
  return [...sourcedTexts(agent, type), ...waiting]
}
