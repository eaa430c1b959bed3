// Shared helpers for the botDelivery in-process tests: a team on real DSH, quiescence, log reads.
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { Script, ScriptMap } from '../../../scripts/scripted-model/format.ts'
import { startTeamHost, type DshHost, type TeamHostOptions } from '../../support/dsh-host.ts'
import type { Requester } from '../../../src/core/caller.ts'
import { readSource } from '../../../src/core/sources.ts'

export const user = { kind: 'user' } as const

export async function team(script: Script | ScriptMap, opts: Pick<TeamHostOptions, 'home' | 'config'> = {}): Promise<DshHost> {
  const host = await startTeamHost(script, opts)
  await host.ctx.botDelivery.ready
  return host
}

/**
 * A Bot sending from its own chat outside any turn. Its messages go at hop 1 only while that chat's
 * last turn was the person's (or none): the roster answers `turnOf` with the current *or last*
 * turn, so after a turn a Bot message started, sends from here continue that chain (one hop deeper).
 */
export function from(host: DshHost, botId: string): Requester {
  return { kind: 'bot', sessionId: host.ctx.botRoster.bot(botId)!.sessionParts.at(-1)!.sessionId }
}

/** Resolves once `holds()` is true of the saved team state: checked now and after every change the store publishes. */
export function stateWhere(host: DshHost, holds: () => boolean): Promise<void> {
  if (holds()) return Promise.resolve()
  return new Promise((resolve) => {
    const stop = host.ctx.botStore.subscribe(() => {
      if (!holds()) return
      stop()
      resolve()
    })
  })
}

/** A signal a scripted reply can give (`fire()`) and a test can await (`fired`). */
export function signal(): { fire(): void; fired: Promise<void> } {
  let fire!: () => void
  const fired = new Promise<void>((r) => {
    fire = r
  })
  return { fire, fired }
}

/** One turn of the event loop: lets handlers already queued (turn ends, flush callbacks) run. */
const tick = () => new Promise<void>((r) => setImmediate(r))

/**
 * Whether an agent's inbox holds work: a queued turn, or next-step input other than the plugin's
 * injected notices (a role change: it waits for the next turn and wakes nothing).
 */
function pendingWork(a: Agent): boolean {
  return a.inbox.nextTurn.length > 0 || a.inbox.nextStep.some((m) => readSource(m.source)?.form !== 'notice')
}

/** True when nothing in the team is working or about to: agents idle with no work pending, no round. */
function still(host: DshHost): boolean {
  if (host.ctx.agents.list().some((a) => a.status !== 'idle' || pendingWork(a))) return false
  return !host.ctx.botRooms.groups().some((g) => host.ctx.botRooms.roundRunning(g.id))
}

/**
 * Wait until the team is quiet, on events only: every agent idle (`whenIdle`), every send the
 * plugin started itself (replies, discard reports) and every delivery outcome saved
 * (`botDelivery.settled()`), no room round running — and that still holds after one more turn of
 * the event loop (a handler queued by the last turn end may start new work). Loops while anything
 * new started; the timeout only turns a hang into a clear failure, it never ends the wait early.
 */
export async function quiesce(host: DshHost, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    await Promise.all(host.ctx.agents.list().map((a) => a.whenIdle()))
    await host.ctx.botDelivery.settled()
    await tick()
    if (!still(host)) continue
    for (const a of host.ctx.agents.list()) await host.ctx.sessions.flush(a.session)
    await host.ctx.botDelivery.settled()
    await tick()
    if (still(host)) return
  }
  const busy = host.ctx.agents.list().filter((a) => a.status !== 'idle' || pendingWork(a))
  throw new Error(`the team did not go quiet: ${busy.map((a) => `${String(a.id)} is ${a.status}, ${a.inbox.nextTurn.length} turn(s) queued`).join('; ')}`)
}

export function userPrompt(agent: Agent, text: string) {
  const m = createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } })
  agent.followup(m)
  return m
}

/** `user/message` events of an agent's log, with their text and relay facts. */
export function userMessages(agent: Agent) {
  return agent.session.events.flatMap((e, index) => {
    if (e.type !== 'user/message') return []
    const m = e.data as { id: string; source: Record<string, unknown>; content: { type: string; text?: string }[] }
    return [{ index, id: String(m.id), source: m.source, text: m.content.map((b) => b.text ?? '').join('') }]
  })
}

/** The turn a log position belongs to (the last turn/start before it). */
export function turnAt(agent: Agent, index: number): number {
  for (let i = index; i >= 0; i--) {
    const e = agent.session.events[i]!
    if (e.type === 'turn/start') return (e.data as { turn: number }).turn
  }
  return -1
}

export function turnEnds(agent: Agent) {
  return agent.session.events
    .filter((e) => e.type === 'turn/end')
    .map((e) => e.data as { turn: number; reason: { kind: string; reason?: { reason?: string } } })
}

export function toolResults(agent: Agent, name?: string): string[] {
  const calls = new Map<string, string>()
  const out: string[] = []
  for (const e of agent.session.events) {
    if (e.type === 'tool/call') calls.set(String((e.data as { callId: string }).callId), (e.data as { name: string }).name)
    if (e.type === 'tool/result') {
      const d = e.data as { callId?: string; message: { content: { toolCallId?: string; content: { text?: string }[] }[] } }
      const block = d.message.content[0]!
      const callName = calls.get(String(d.callId ?? block.toolCallId))
      if (name && callName !== name) continue
      out.push(block.content.map((c) => c.text ?? '').join(''))
    }
  }
  return out
}

/** A host tool `slow` that waits `ms` (honouring abort) and signals when it starts. */
/**
 * A `slow` tool that works for `ms`, or — with `ms = 'until-released'` — until the test calls
 * `release()` (so a test can hold a Bot busy until something else has happened, on an event,
 * whatever the machine's speed).
 */
export function slowTool(host: DshHost, ms: number | 'until-released' = 400) {
  const state = { started: 0 }
  const waiters = new Set<() => void>()
  const held = new Set<() => void>()
  let released = false
  host.ctx.tools.register(
    defineTool({
      name: 'slow',
      description: 'slow work',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_a: unknown, v: string) => [{ type: 'text' as const, text: v }] },
      async execute(_args, exec) {
        state.started++
        for (const wake of waiters) wake()
        await new Promise<void>((resolve, reject) => {
          const done = () => {
            held.delete(done)
            resolve()
          }
          const t = ms === 'until-released' ? undefined : setTimeout(done, ms)
          if (ms === 'until-released') {
            if (released) return resolve()
            held.add(done)
          }
          exec.signal.addEventListener('abort', () => {
            clearTimeout(t)
            held.delete(done)
            reject(new Error('aborted'))
          })
        })
        return 'slow work done'
      },
    }),
  )
  return {
    state,
    /** Let every held call (and every later one) finish. */
    release(): void {
      released = true
      for (const done of [...held]) done()
    },
    /** Resolves once `n` calls of the tool have started (woken by each start, no polling). */
    running(n = 1): Promise<void> {
      if (state.started >= n) return Promise.resolve()
      return new Promise((resolve) => {
        const wake = () => {
          if (state.started < n) return
          waiters.delete(wake)
          resolve()
        }
        waiters.add(wake)
      })
    },
  }
}

/**
 * Watch the turns of some Sessions as DSH logs them (`turn/start` … `turn/end`): which started, in
 * order (by the label `sessions` maps each Session id to), and the most that ran at once.
 */
export function turnsAtOnce(host: DshHost, sessions: ReadonlyMap<string, string>): { readonly started: readonly string[]; readonly most: number } {
  const started: string[] = []
  let running = 0
  let most = 0
  host.ctx.on('session/event', (session, event) => {
    const label = sessions.get(String(session.id))
    if (label === undefined) return
    if (event.type === 'turn/start') {
      started.push(label)
      most = Math.max(most, ++running)
    } else if (event.type === 'turn/end') running--
  })
  return {
    started,
    get most() {
      return most
    },
  }
}

/** Resolves at the next `turn/end` of a Session (register it before what starts the turn). */
export function nextTurnEnd(host: DshHost, sessionId: string): Promise<void> {
  return new Promise((resolve) => {
    const dispose = host.ctx.on('session/event', (session, event) => {
      if (String(session.id) !== sessionId || event.type !== 'turn/end') return
      dispose()
      resolve()
    })
  })
}

export function agentOfSession(host: DshHost, sessionId: string): Agent {
  const a = host.ctx.agents.get(SessionId(sessionId))
  if (!a) throw new Error(`no live agent ${sessionId}`)
  return a
}
