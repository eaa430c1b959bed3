/**
 * The one opener of team Sessions (own chats, rooms, members): created as DSH Web creates a chat
 * (api proxy, the Bot team preset and workspace, a pinned title) or with `ctx.agents.create`, resumed,
 * closed; the bootstrap turn that makes DSH Web list a Session without a model call. Deliberately
 * decides nothing about who may open what and attaches nothing to the agents.
 */
import { basename } from 'node:path'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent, AgentHandle } from '@deepseek-ai/dsh-agent'
import { SessionId } from '@deepseek-ai/dsh-session'
import { createWebSession, rpcId, unwrap, type ApiProxy, type WorkspaceRegistry } from './web.ts'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { parseModel } from '../core/models.ts'
import { dshDefaultModel } from './routes.ts'
import { bootstrapSource, readSourceOf } from '../core/sources.ts'

export interface SessionOpenerConfig {
  /** A team Session's cwd unless `create` is given another (a Bot's own working folder). */
  workspace: string
  /** `provider/model` where DSH has no default and the Bot has no model (in-process hosts). */
  defaultModel?: string | undefined
}

export class SessionOpener {
  private readonly handles = new Map<string, AgentHandle>()
  private readonly ctx: Context
  private readonly config: SessionOpenerConfig

  constructor(ctx: Context, config: SessionOpenerConfig) {
    this.ctx = ctx
    this.config = config
  }

  /**
   * Dispose the agents this opener created when the owning service's fiber ends. Call it from the
   * service's init, after its other start-up effects: teardown runs in reverse, so the agents go
   * first, while DSH's session persistence still records their last events.
   */
  disposeWithFiber(label: string): void {
    this.ctx.effect(
      () => () => {
        for (const handle of this.handles.values()) void handle.dispose()
        this.handles.clear()
      },
      label,
    )
  }

  private get api(): ApiProxy | undefined {
    return this.ctx.get('apiProxy')
  }

  private get registry(): WorkspaceRegistry | undefined {
    return this.ctx.get('workspaceRegistry')
  }

  /** The Bot's model, else the plugin's `defaultModel`, else DSH's own default (as DSH Web does). */
  private agentOptions(model: string | undefined) {
    const route = parseModel(model ?? this.config.defaultModel ?? dshDefaultModel(this.ctx))
    return route ? { agentOptions: { provider: route.provider, model: route.model } } : {}
  }

  /**
   * Create a Session under a chosen id; its agent is live when this resolves. With `bootstrap`, a
   * Session created in DSH Web runs one turn that makes no model call, so DSH Web lists it (it hides
   * Sessions that never ran a turn): the message is entered as nothing by a `{prepend}`
   * `agent/pre-step` listener on that agent alone, which does not ask later listeners (DSH Web's
   * own would add a runtime-context message, and that one would be sent to the model). The
   * listener is removed when the turn ends.
   */
  async create(sessionId: string, opts: { title: string; model?: string | undefined; bootstrap?: string; cwd?: string; workspace?: false }): Promise<Agent> {
    const api = this.api
    const cwd = opts.cwd ?? this.config.workspace
    if (api) {
      // The Bot team agent preset when `botCompaction` installed it (DSH's default otherwise).
      const agentPreset = await this.ctx.get('botCompaction')?.sessionPreset()
      // A Bot's own folder gets a workspace of its own in DSH Web's list (named by the folder), unless one is there.
      const workspaceTitle = cwd === this.config.workspace ? undefined : `Bot team: ${basename(cwd) || cwd}`
      // `workspace: false`: a folder that comes and goes (a task's clone) gets no workspace, its Session lies in none.
      const registry = opts.workspace === false ? undefined : this.registry
      await createWebSession(api, registry, { sessionId, folder: cwd, title: opts.title, agentPreset, ...(workspaceTitle ? { workspaceTitle } : {}) })
    } else {
      const handle = await this.ctx.agents.create({ sessionId: SessionId(sessionId), meta: { cwd }, ...this.agentOptions(opts.model) })
      this.handles.set(sessionId, handle)
    }
    const agent = this.ctx.agents.get(SessionId(sessionId))
    if (!agent) throw new Error(`Session ${opts.title} did not start`)
    if (api && opts.bootstrap !== undefined) await this.bootstrap(agent, opts.bootstrap)
    return agent
  }

  private async bootstrap(agent: Agent, text: string): Promise<void> {
    const isBootstrap = (m: { source: unknown }) => readSourceOf(m.source, 'bootstrap') !== undefined
    const dispose = agent.ctx.on(
      'agent/pre-step',
      async (payload, next) => {
        if (payload.messages.length > 0 && payload.messages.every(isBootstrap)) return { kind: 'enter', messages: [] }
        return next()
      },
      { prepend: true },
    )
    try {
      agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: bootstrapSource(text) }))
      await agent.whenIdle()
    } finally {
      dispose()
    }
  }

  /** Resumes under way, per Session: a second caller waits for the first (DSH refuses to prepare a live Session). */
  private readonly resuming = new Map<string, Promise<Agent>>()

  /** The live agent of a Session, resuming it when it is cold (one resume at a time per Session). */
  resume(sessionId: string, model?: string): Promise<Agent> {
    const live = this.ctx.agents.get(SessionId(sessionId))
    if (live) return Promise.resolve(live)
    const pending = this.resuming.get(sessionId)
    if (pending) return pending
    const run = this.resumeCold(sessionId, model).finally(() => this.resuming.delete(sessionId))
    this.resuming.set(sessionId, run)
    return run
  }

  private async resumeCold(sessionId: string, model: string | undefined): Promise<Agent> {
    const api = this.api
    if (api) {
      // Resumes with DSH Web's full composition (preset, model selection) and nothing else.
      unwrap(await api.sessions.models({ rpcId: rpcId(), payload: { sessionId } }), 'resuming the Session')
      const agent = this.ctx.agents.get(SessionId(sessionId))
      if (!agent) throw new Error(`Session ${sessionId} could not be resumed`)
      return agent
    }
    let handle: AgentHandle
    try {
      handle = await this.ctx.agents.resume({ resumeSessionId: SessionId(sessionId), ...this.agentOptions(model) })
    } catch (error) {
      // A Session that never ran a turn was never written; open it afresh under the same id.
      if (!/not found/.test(error instanceof Error ? error.message : '')) throw error
      handle = await this.ctx.agents.create({ sessionId: SessionId(sessionId), meta: { cwd: this.config.workspace }, ...this.agentOptions(model) })
    }
    this.handles.set(sessionId, handle)
    return handle.agent
  }

  /** Hide a Session from DSH Web's session list (archive); no-op without DSH Web. */
  async archive(sessionId: string): Promise<void> {
    await this.registry?.archiveSession(SessionId(sessionId))
  }

  /** End a Session's activity for good: cancel its turn, dispose the agent if ours, archive it. */
  async close(sessionId: string, reason: string): Promise<number> {
    const agent = this.ctx.agents.get(SessionId(sessionId))
    let dropped = 0
    if (agent) {
      dropped = agent.inbox.nextTurn.length + agent.inbox.nextStep.length
      agent.cancel({ kind: 'hook', reason })
      await agent.whenIdle()
    }
    const handle = this.handles.get(sessionId)
    if (handle) {
      this.handles.delete(sessionId)
      await handle.dispose()
    }
    await this.archive(sessionId)
    return dropped
  }
}

/**
 * DSH rebuilds a resumed agent's inbox but does not run it: take the queue out and put it back
 * (same message ids, same order), which wakes the agent. Ids in `quiet` while they are taken out
 * let an `agent/inbox/discarded` listener tell this from a real discard. No-op unless the agent
 * is idle with something queued.
 */
export function redriveInbox(agent: Agent, quiet?: Set<string>): boolean {
  if (agent.status !== 'idle' || !agent.inbox.hasPending) return false
  const steps = [...agent.inbox.nextStep]
  const turns = [...agent.inbox.nextTurn]
  const ids = [...steps, ...turns].map((m) => String(m.id))
  for (const id of ids) quiet?.add(id)
  try {
    for (const m of [...steps, ...turns]) agent.inbox.remove(m.id)
  } finally {
    for (const id of ids) quiet?.delete(id)
  }
  for (const m of steps) agent.steer(m)
  for (const m of turns) agent.followup(m)
  return true
}
