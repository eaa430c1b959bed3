/**
 * What a service registers on an agent's scope (tools, sections, listeners) lives as long as the
 * agent, which may outlive the service: this tracks the disposers per agent and removes them when
 * the service's fiber ends. Deliberately remembers disposers only.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'

type Disposer = () => unknown

export class AgentRegistrations {
  private readonly byAgent = new Map<Agent, Disposer[]>()

  constructor(ctx: Context, label: string) {
    ctx.on('agent/disposed', ({ agent }) => {
      this.byAgent.delete(agent)
    })
    ctx.effect(
      () => () => {
        for (const disposers of this.byAgent.values()) {
          for (const dispose of disposers.reverse()) {
            try {
              dispose()
            } catch {
              // the agent's scope is already gone, and its registrations with it
            }
          }
        }
        this.byAgent.clear()
      },
      label,
    )
  }

  /** Remember one registration made on `agent.ctx`; returns it unchanged. */
  add<T extends Disposer>(agent: Agent, disposer: T): T {
    const list = this.byAgent.get(agent) ?? []
    list.push(disposer)
    this.byAgent.set(agent, list)
    return disposer
  }

  /** Agents currently tracked (for tests and diagnostics). */
  get size(): number {
    return this.byAgent.size
  }
}
