/**
 * Registrations a service makes on an agent's scope (`agent.ctx`: tools, prompt sections,
 * listeners) live as long as the agent — DSH disposes them with it. But an agent can outlive the
 * service (DSH Web owns Bot agents; the plugin may be unloaded or hot-reloaded first), and then it
 * would keep tools and listeners that call into an unloaded service. This tracks them per agent
 * and removes them when the service's fiber ends; entries are dropped when the agent goes away.
 *
 * Deliberately narrow: it only remembers disposers; what is registered is the caller's business.
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
