/**
 * The Bot compaction engine — DSH's own `BasicCompactionEngine` with Bot Sessions taken over, as a
 * plugin module DSH's Loader can mount from a preset row (named exports `name`, `inject`, `Config`,
 * `apply`; no default export).
 *
 * What it changes, for Bot Sessions only (a Session the plugin's `botCompaction` writer owns: a
 * Bot's own chat, any part, or its Session in a group):
 * - `compactIfNeeded` answers `null`: DSH's automatic pressure compaction and its overflow recovery
 *   never run there (the steward decides; an overflow is the steward's handoff). Both automatic
 *   listeners dispatch to this method at event time, so the override covers them.
 * - `summarize()` — compaction-basic's one subclass hook — returns the plugin's checkpoint: DSH's
 *   own summary of the condensed range (DSH's summarizer, one call on the conversation's own
 *   prefix) followed by every message to the Bot word for word. `compactNow` (the plugin's
 *   `checkpoint()`, and a person's `/compact` in a Bot chat) therefore writes the plugin's text
 *   through DSH's own transaction: range choice, shrink check, log events, flush.
 * Every other Session — and every Session when the plugin is not loaded — runs DSH's engine
 * unchanged (the `super` calls).
 *
 * Deliberately does not: choose when to checkpoint (the steward), word the checkpoint (the
 * writer, `checkpoint-text.ts`), or change retention, pricing or the transaction.
 *
 * Composes: each instance adds itself to the process-wide table (`registry.ts`) under its Cordis
 * root for its lifetime, so the plugin can call `compactNow` on it although DSH Web mounts it inside
 * a preset's isolated realm. Listeners: those of DSH's engine (`agent/pre-step`,
 * `agent/request-error`, `agent/status`, `session/event`, all on the engine's own context — in DSH
 * Web the preset's standing scope), unchanged.
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
