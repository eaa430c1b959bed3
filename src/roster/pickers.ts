/**
 * A Bot's model and preset on its Sessions, DSH Web's pickers kept truthful (a picked model becomes
 * the Bot's; a lower preset is adopted, a higher one undone), and the delegated mode set at a chain
 * turn's first step. Deliberately decides no authority beyond "a picker may lower, never raise".
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { LlmCallConfig } from '@deepseek-ai/dsh-llm'
import { setSandboxMode } from '@deepseek-ai/dsh-sandbox-policy'
import { SessionId } from '@deepseek-ai/dsh-session'
import { asMode, raises, turnMode, type SandboxMode } from '../core/chain.ts'
import { parseModel } from '../core/models.ts'
import { own, type Bot, type BotStore } from '../store/index.ts'
import { PERMISSION_PRESETS } from './bot-fields.ts'
import type { BotSessionOwner } from './ownership.ts'
import type { TurnInfo } from './turns.ts'
import { errorText } from '../core/errors.ts'

/** What picker sync asks of the roster. */
export interface PickerHost {
  readonly store: BotStore
  ownerOf(sessionId: string): BotSessionOwner | undefined
  sessionsOf(botId: string): readonly string[]
  turnOf(sessionId: string): TurnInfo | undefined
  /** A step of `turn` begins in a Bot Session (so a turn that claimed no message is known too). */
  turnBegan(sessionId: string, turn: number): void
  record(text: string, botId?: string): void
}

export class PickerSync {
  /** Per agent: the route its step would take without the Bot's model (see `route`). */
  private readonly seenRoutes = new WeakMap<Agent, string>()
  /** Bot Sessions whose identity and preset are in place (later preset events are the user's). */
  private readonly attached = new Set<string>()
  /** Bot Sessions this service is setting a preset on right now. */
  private readonly applying = new Set<string>()
  /** Per Session: the turn whose mode was already decided. */
  private readonly modeTurn = new Map<string, number>()

  private readonly ctx: Context
  private readonly host: PickerHost

  constructor(ctx: Context, host: PickerHost) {
    this.ctx = ctx
    this.host = host
  }

  /** Register the global listeners (effects of the roster's fiber). */
  start(): void {
    this.ctx.on('agent/request', ({ agent }, next) => this.route(agent, next), { prepend: true })
    this.ctx.on('session/event', (session, event) => {
      if (event.type !== 'permission/preset') return
      this.onPresetEvent(String(session.id), (event.data as { preset?: string }).preset).catch((error: unknown) => {
        this.host.record(`could not adopt a preset change: ${errorText(error)}`)
      })
    })
  }

  private get presets() {
    return this.ctx.get('permissionPresets')
  }

  private bot(botId: string): Bot | undefined {
    const bot = own(this.host.store.state.bots, botId)
    return bot && !bot.deleted ? bot : undefined
  }

  /**
   * The sandbox mode of a preset: the host's own table where it has one, else the named preset's
   * own mode. An unknown preset (this DSH does not have it) is `undefined`: fail closed.
   */
  presetMode(preset: string): SandboxMode | undefined {
    const presets = this.presets
    if (presets) {
      try {
        return asMode(presets.resolve(preset).sandbox)
      } catch {
        return undefined
      }
    }
    return (PERMISSION_PRESETS as readonly string[]).includes(preset) ? (preset as SandboxMode) : undefined
  }

  /** The Bot's preset if this DSH does not know it (its Sessions then fail closed). */
  unknownPreset(bot: Bot): string | undefined {
    return this.presetMode(bot.permissionPreset) === undefined ? bot.permissionPreset : undefined
  }

  /** The mode a Bot's current turn in a Session runs at. */
  turnModeOf(sessionId: string, bot: Bot): SandboxMode {
    const own = this.presetMode(bot.permissionPreset) ?? 'read-only'
    const turn = this.host.turnOf(sessionId)
    return turn ? turnMode(own, turn.origin, bot.acceptsDelegatedWork) : own
  }

  // ── model ───────────────────────────────────────────────────────────────────────────────────

  private async route(agent: Agent, next: () => Promise<LlmCallConfig>): Promise<LlmCallConfig> {
    const base = await next()
    const owner = this.host.ownerOf(String(agent.id))
    const bot = owner && this.bot(owner.botId)
    if (!bot) return base
    const seen = `${base.provider}/${base.model}`
    const before = this.seenRoutes.get(agent)
    this.seenRoutes.set(agent, seen)
    if (before !== undefined && seen !== before && seen !== bot.model && this.host.store.isWriter()) {
      await this.host.store.update((s) => {
        s.bots[bot.id]!.model = seen
      })
      this.host.record(`the model picked in ${bot.name}'s chat (${seen}) is now its model`, bot.id)
      return base
    }
    const route = parseModel(bot.model)
    if (!route) return base
    // The default route's knobs (reasoning effort, max tokens) may not exist on the Bot's model.
    const { reasoningEffort: _effort, maxTokens: _max, ...rest } = base
    return { ...rest, provider: route.provider, model: route.model }
  }

  // ── presets ─────────────────────────────────────────────────────────────────────────────────

  /**
   * A preset chosen in DSH Web's selector for one of a Bot's Sessions becomes the Bot's preset when
   * it does not raise the Bot's authority; a raise is undone (the person raises presets on the
   * paired team page, which a Bot's shell cannot reach).
   */
  private async onPresetEvent(sessionId: string, preset: string | undefined): Promise<void> {
    if (!preset || !this.attached.has(sessionId) || this.applying.has(sessionId)) return
    const owner = this.host.ownerOf(sessionId)
    const bot = owner && this.bot(owner.botId)
    if (!bot || bot.permissionPreset === preset || !this.host.store.isWriter()) return
    if (!(PERMISSION_PRESETS as readonly string[]).includes(preset)) return // a custom preset of DSH's: it stays on that Session only
    if (raises(this.presetMode(bot.permissionPreset), this.presetMode(preset))) {
      this.host.record(
        `a raise of ${bot.name}'s preset to ${preset} from DSH's own selector was undone: raising a preset is done on the paired team page`,
        bot.id,
      )
      const agent = this.ctx.agents.get(SessionId(sessionId))
      if (agent) await this.applyTo(agent, bot)
      return
    }
    await this.host.store.update((s) => {
      s.bots[bot.id]!.permissionPreset = preset
    })
    this.host.record(`the permission preset picked in ${bot.name}'s chat (${preset}) now applies to all its Sessions`, bot.id)
    await this.applyEverywhere(this.bot(bot.id)!)
  }

  /** Apply the Bot's permission preset to every live Session of it (own chat parts and groups). */
  async applyEverywhere(bot: Bot): Promise<void> {
    for (const sessionId of this.host.sessionsOf(bot.id)) {
      const agent = this.ctx.agents.get(SessionId(sessionId))
      if (agent) await this.applyTo(agent, bot)
    }
  }

  /** Put the Bot's permission preset on one of its Sessions (no-op when already there). */
  async applyTo(agent: Agent, bot: Bot): Promise<void> {
    const presets = this.presets
    const sessionId = String(agent.id)
    if (presets && presets.current(agent.session.events) !== bot.permissionPreset && this.unknownPreset(bot) === undefined) {
      this.applying.add(sessionId)
      try {
        await presets.set(agent.session, bot.permissionPreset)
        this.modeTurn.delete(sessionId)
      } catch (error) {
        this.host.record(`could not apply permission preset ${bot.permissionPreset} to ${bot.name}: ${errorText(error)}`, bot.id)
      } finally {
        this.applying.delete(sessionId)
      }
    }
    this.attached.add(sessionId)
  }

  // ── delegated mode ──────────────────────────────────────────────────────────────────────────

  /** Install the per-turn mode switch on one Bot agent; returns its disposer. */
  switchModes(agent: Agent, botId: string): () => unknown {
    const sessionId = String(agent.id)
    const dispose = agent.ctx.on(
      'agent/pre-step',
      async (payload, next) => {
        this.host.turnBegan(sessionId, payload.turn)
        const turn = this.host.turnOf(sessionId)
        const bot = this.bot(botId)
        if (turn && bot && this.modeTurn.get(sessionId) !== turn.turn) {
          this.modeTurn.set(sessionId, turn.turn)
          const mode = this.turnModeOf(sessionId, bot)
          if (lastSandboxMode(agent.session.events) !== mode && this.presets) {
            setSandboxMode(agent.session, mode)
            if (turn.origin.kind === 'chain' && mode !== this.presetMode(bot.permissionPreset)) {
              this.host.record(`${bot.name}'s turn started by ${turn.who} runs at ${mode} (the lowest preset along its chain)`, bot.id)
            }
          }
        }
        return next()
      },
      { prepend: true },
    )
    return () => {
      dispose()
      this.modeTurn.delete(sessionId)
    }
  }
}

/** The last `sandbox/mode` a Session logged (pure). */
function lastSandboxMode(events: readonly { type: string; data: unknown }[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === 'sandbox/mode') return (events[i]!.data as { mode?: string }).mode
  }
  return undefined
}
