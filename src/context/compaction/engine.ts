/**
 * The Bot compaction engine: DSH's own `BasicCompactionEngine` as a plugin module a preset row
 * mounts, with Bot Sessions taken over — `compactIfNeeded` declines them (the steward decides) and
 * `summarize()` returns the plugin's checkpoint text; every other Session runs DSH's engine
 * unchanged. Meets the plugin's writer through `registry.ts`. Deliberately does not choose when,
 * word the text, or change retention or the transaction.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { ZodType } from 'zod'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { importFromHost } from '../../dsh/host-module.ts'
import { addEngine, writerFor, type SummarizationInput, type SummaryResult } from './registry.ts'

type Trigger = 'pressure' | 'context-overflow'

/** The surface of DSH's `BasicCompactionEngine` this subclass relies on. */
interface BasicEngine {
  readonly ctx: Context
  compactIfNeeded(agent: Agent, trigger: Trigger, signal: AbortSignal): Promise<unknown>
  compactNow(agent: Agent, signal: AbortSignal, sourceCommandId?: never): Promise<unknown>
  summarize(input: SummarizationInput, agent: Agent, signal?: AbortSignal): Promise<SummaryResult>
}
type BasicEngineClass = (new (ctx: Context, config?: object) => BasicEngine) & { inject: string[]; Config?: ZodType }

const { BasicCompactionEngine: Basic } = await importFromHost<{ BasicCompactionEngine: BasicEngineClass }>('@deepseek-ai/dsh-compaction-basic')

export class BotCompactionEngine extends Basic {
  constructor(ctx: Context, config: object = {}) {
    super(ctx, config)
    ctx.effect(() => addEngine(ctx.root, this), 'bot-team:compaction-engine')
  }

  private writerOf(agent: Agent) {
    const writer = writerFor(this.ctx.root)
    return writer?.owns(String(agent.session.id)) ? writer : undefined
  }

  override async compactIfNeeded(agent: Agent, trigger: Trigger, signal: AbortSignal): Promise<unknown> {
    if (this.writerOf(agent)) return null
    return super.compactIfNeeded(agent, trigger, signal)
  }

  override async summarize(input: SummarizationInput, agent: Agent, signal?: AbortSignal): Promise<SummaryResult> {
    const writer = this.writerOf(agent)
    if (!writer) return super.summarize(input, agent, signal)
    return writer.summarize(input, agent, () => super.summarize(input, agent, signal))
  }
}

export const name = 'bot-team-compaction'
export const inject = Basic.inject
export const Config = Basic.Config

export function apply(ctx: Context, config: object): void {
  ctx.plugin(BotCompactionEngine, config)
}
