/**
 * `botCompaction`: `checkpoint(sessionId)` condenses a Bot Session in place through DSH's own
 * compaction (`compactNow` on the Bot engine) with the plugin's text, masked when secrets are loaded;
 * which Sessions are Bot Sessions; the Bot team preset and its name for the opener. Answers
 * `{ok:false, reason}` instead of throwing. Deliberately does not decide when, open Sessions or keep
 * state (src/context/README.md).
 */
import { fileURLToPath } from 'node:url'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { SessionId } from '@deepseek-ai/dsh-session'
import { z } from 'zod'
import { textOf } from '../../core/log-lines.ts'
import type { BotRoster } from '../../roster/service.ts'
import { checkpointText, checkpointMessages } from './checkpoint-text.ts'
import { linesFor, verbatimBudget } from '../thresholds.ts'
import { installBotPreset, type Installed } from './preset-install.ts'
import { engineFor, setWriter, type CheckpointWriter, type SummarizationInput, type SummaryResult } from './registry.ts'
import { errorText } from '../../core/errors.ts'
import { warn } from '../../dsh/warn.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botCompaction: BotCompaction
  }
}

export const Config = z.object({
  /** Install the Bot team agent preset where DSH Web runs (off: Bot Sessions keep DSH's compaction). */
  preset: z.boolean().default(true),
  /** Check line as a share of the usable window, when the caller gives none (the steward's default). */
  checkRatio: z.number().gt(0).lte(0.95).default(0.8),
})
export type Config = z.input<typeof Config>

export type CheckpointOutcome = { ok: true } | { ok: false; reason: string }

export interface CheckpointOptions {
  /** The steward's check line in tokens (verbatim budget = min(16,384, check / 4)). */
  checkTokens?: number
  signal?: AbortSignal
}

/**
 * What the condensed range costs at least, estimated as the benches do (chars / 4): its text, and
 * tool calls' arguments. DSH's meter adds structure on top, so a text under 0.8 of this is under
 * what DSH prices the range at (DSH refuses a summary that does not shrink its range).
 */
function regionTokens(input: SummarizationInput): number {
  let chars = 0
  for (const m of input.messages) {
    const blocks = m.content as readonly { type: string; arguments?: string }[]
    chars += textOf(blocks as Parameters<typeof textOf>[0]).length
    for (const b of blocks) if (b.type === 'tool-call') chars += (b.arguments ?? '').length
  }
  return Math.ceil(chars / 4)
}

/** The share of the range a checkpoint may use. */
const CAP_SHARE = 0.8

/** The engine module's absolute path: the source file, or the built `dist/compaction-engine.mjs`. */
export function engineModulePath(): string {
  const here = import.meta.url
  return fileURLToPath(new URL(here.endsWith('.ts') ? './engine.ts' : './compaction-engine.mjs', here))
}

export class BotCompaction extends Service {
  static inject = ['agents']
  static Config = Config

  private readonly config: z.output<typeof Config>
  private readonly pending = new Map<string, CheckpointOptions>()
  private installed: Promise<Installed> | undefined

  constructor(ctx: Context, config: Config = {}) {
    super(ctx, 'botCompaction')
    this.config = Config.parse(config)
    ctx.effect(() => setWriter(ctx.root, this.writer), 'bot-compaction:writer')
    if (this.config.preset) {
      ctx.inject(['agentPresets'], (ctx) => {
        this.installed = installBotPreset(ctx.agentPresets, engineModulePath()).then((result) => {
          if (!result.ok)
            warn(
              ctx,
              `Bot Sessions keep DSH's own compaction (handoffs only): the Bot team preset was not installed — ${result.reason}`,
              undefined,
              'compaction',
            )
          return result
        })
      })
    }
  }

  private get roster(): BotRoster | undefined {
    return this.ctx.get('botRoster')
  }

  /** True for a Bot's own chat (any part) or its Session in a group. */
  owns(sessionId: string): boolean {
    return this.roster?.ownerOf(sessionId) !== undefined
  }

  /** The agent preset new Bot Sessions run on, once installed (undefined: DSH's default). */
  async sessionPreset(): Promise<string | undefined> {
    const installed = await this.installed
    return installed?.ok ? installed.id : undefined
  }

  /** Condense a Bot Session in place (see the header). Never throws. */
  async checkpoint(sessionId: string, options: CheckpointOptions = {}): Promise<CheckpointOutcome> {
    const fail = (reason: string): CheckpointOutcome => ({ ok: false, reason })
    if (!this.owns(sessionId)) return fail('not a Bot Session')
    const agent = this.ctx.agents.get(SessionId(sessionId))
    if (!agent) return fail('the Session is not open')
    const presets = this.ctx.get('agentPresets')
    if (presets) {
      const on = presets.composedPreset(agent.ctx)
      const ours = await this.sessionPreset()
      if (!ours || on !== ours) return fail(`the Session runs on the ${on ?? 'default'} preset, which keeps DSH's own compaction until the Bot's next part`)
    }
    const engine = engineFor(this.ctx.root)
    if (!engine) return fail('no Bot compaction engine runs in this host (it comes with the Bot team preset in DSH Web)')
    this.pending.set(sessionId, options)
    try {
      await agent.whenIdle()
      const result = await engine.compactNow(agent, options.signal ?? new AbortController().signal)
      return result ? { ok: true } : fail('nothing to condense yet')
    } catch (error) {
      return fail(errorText(error))
    } finally {
      this.pending.delete(sessionId)
    }
  }

  private readonly writer: CheckpointWriter = {
    owns: (sessionId) => this.owns(sessionId),
    summarize: (input, agent, dsh) => this.summarize(input, agent, dsh),
  }

  private async summarize(input: SummarizationInput, agent: Agent, dsh: () => Promise<SummaryResult>): Promise<SummaryResult> {
    const sessionId = String(agent.session.id)
    const base = await dsh()
    const summary = base.summary.map((b) => (b.type === 'text' ? b.text : '')).join('')
    const events = agent.session.events as unknown as readonly { type: string; seq: number; time: number; data: unknown }[]
    const owner = this.roster?.ownerOf(sessionId)
    const check = this.pending.get(sessionId)?.checkTokens ?? (await this.checkLine(base.provider, base.model))
    const out = checkpointText({
      number: events.filter((e) => e.type === 'compaction/summary').length + 1,
      summary,
      messages: checkpointMessages(events),
      part: owner?.kind === 'own' ? owner.part : undefined,
      budgetTokens: verbatimBudget(check),
      capTokens: Math.floor(regionTokens(input) * CAP_SHARE),
    })
    const secrets = this.ctx.get('botSecrets')
    const text = secrets?.mask ? secrets.mask(out.text) : out.text
    return { ...base, summary: [{ type: 'text', text }] }
  }

  /** The default check line: `checkRatio` of usable = max(window − reserve, window / 2). */
  private async checkLine(provider: string, model: string): Promise<number> {
    const llm = this.ctx.get('llm')
    const info = await llm?.resolveModelInfo(provider, model).catch(() => undefined)
    return linesFor({ window: info?.context?.contextWindow, reserve: info?.defaultMaxTokens, checkRatio: this.config.checkRatio }).check
  }
}
