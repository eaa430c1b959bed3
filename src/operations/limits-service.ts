/**
 * `botLimits`: the one source of the limits in force — the config's values with the person's Team
 * settings over them — asked by every service at each check; `set` takes a patch checked against the
 * bounds, and a raise only with `mayRaise` (a paired browser), decided inside the save.
 * Deliberately enforces no limit itself.
 */
import { Service, type Context } from '@deepseek-ai/cordis'
import { z } from 'zod'
import { TeamRefusal } from '../core/refusal.ts'
import { formatIssues } from '../core/zod-issues.ts'
import type { BotStore } from '../store/index.ts'
import { effectiveLimits, LimitOverrides, raisedLimits, type LimitKey, type Limits } from '../core/limits.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botLimits: BotLimits
  }
}

/** A change of overrides: a value sets one, `null` clears it; keys not named stay as they are. */
export const LimitPatch = z
  .object(Object.fromEntries(Object.entries(LimitOverrides.shape).map(([k, v]) => [k, v.nullable()])))
  .strict() as unknown as z.ZodType<{ [K in LimitKey]?: number | null }>
export type LimitPatch = { [K in LimitKey]?: number | null }

/** The overrides after `patch` (pure): set, clear, keep. */
export function patchOverrides(current: LimitOverrides | undefined, patch: LimitPatch): LimitOverrides {
  const next: Record<string, number> = { ...current }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key]
    else if (value !== undefined) next[key] = value
  }
  return next as LimitOverrides
}

export interface LimitsView {
  /** The limits in force now. */
  limits: Limits
  /** The plugin config's values (what applies where no override is set). */
  config: Limits
  /** The person's overrides. */
  overrides: LimitOverrides
}

export class BotLimits extends Service {
  static inject = ['botStore']

  readonly config: Readonly<Limits>

  constructor(ctx: Context, config: Limits) {
    super(ctx, 'botLimits')
    this.config = Object.freeze({ ...config })
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  /**
   * The limits in force: an override where the person set one, else the config's value. Inside a
   * save, pass the state being written (`s.limits`) so the check and the write agree.
   */
  inForce(overrides: LimitOverrides | undefined = this.store.state.limits): Limits {
    return effectiveLimits(this.config, overrides)
  }

  view(overrides: LimitOverrides | undefined = this.store.state.limits): LimitsView {
    return { limits: this.inForce(overrides), config: { ...this.config }, overrides: { ...overrides } }
  }

  /** Validate `raw` as a patch; a bad field is a refusal naming it (`field: message`), nothing changes. */
  parse(raw: unknown): LimitPatch {
    const parsed = LimitPatch.safeParse(raw)
    if (!parsed.success) throw new TeamRefusal('invalid', `The limits were not changed: ${formatIssues(parsed.error)}`)
    return parsed.data
  }

  /** The limits `patch` would raise (let Bots do more) against the state now. */
  raises(patch: LimitPatch, overrides: LimitOverrides | undefined = this.store.state.limits): LimitKey[] {
    return raisedLimits(effectiveLimits(this.config, overrides), effectiveLimits(this.config, patchOverrides(overrides, patch)))
  }

  /** Apply a patch (validated again); a raise without `mayRaise` is refused inside the save. */
  async set(raw: unknown, opts: { mayRaise: boolean }): Promise<LimitsView> {
    const patch = this.parse(raw)
    await this.store.update((s) => {
      const raised = this.raises(patch, s.limits)
      if (raised.length && !opts.mayRaise)
        throw new TeamRefusal('forbidden', `Raising ${raised.join(', ')} lets Bots do more, so it is accepted only from the paired team page; nothing changed.`)
      const next = patchOverrides(s.limits, patch)
      if (Object.keys(next).length) s.limits = next
      else delete s.limits
    })
    return this.view()
  }
}
