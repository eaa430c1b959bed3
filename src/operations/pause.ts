/**
 * `botPause` — the person's pause switch, and the one seam where Bot-started work is held.
 *
 * Owns: the `paused` record in team state (so a pause survives a restart), `pause()` / `resume()`,
 * and `heldBecause(target)` / `holdsBotWork(target)`: the single question every place that starts
 * Bot work asks — delivery (a held message waits in delivery's own held queue, its record stays
 * pending), rooms (a round waits before its first member turn), schedules (a due task is not
 * fired). Other reasons to hold work (the usage caps: per Bot, per team) plug in with
 * `addHold(fn)`, so callers keep asking one function. When work may go again (resume, a cap's day
 * rolled over: `released()`), the service emits `bot-team/work-released` and wakes `whenReleased`.
 *
 * Deliberately does not: cancel turns that are already running (the person has `stop_bot` and
 * DSH's own stop for that), hold the person's own prompts (they never pass through these seams),
 * or queue anything itself: each service keeps its own held work, in order, and re-checks here.
 *
 * Composes: a Cordis service on `botStore`; reads team state, writes only `paused`. Follows the
 * file in a non-writing process (a resume saved by the writer releases work here too). Listeners
 * of `bot-team/work-released` run in the order their services started; none may veto.
 */
import { Service, type Context } from '@deepseek-ai/cordis'
import { TeamRefusal } from '../core/refusal.ts'
import type { BotStore, PauseRecord } from '../store/index.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botPause: BotPause
  }
  interface Events {
    /** Held Bot-started work may go again (a resume, or a hold that lifted); re-check `holdsBotWork`. */
    'bot-team/work-released'(): void
  }
}

/** What a piece of Bot-started work is aimed at: a Bot (its own chat or a member turn) and/or a group. */
export interface WorkTarget {
  botId?: string
  groupId?: string
}

/** One more reason to hold work (e.g. a spending cap): the reason in words, or undefined to let it go. */
export type Hold = (target: WorkTarget) => string | undefined

export const PAUSED_REASON = 'the team is paused (the person can resume it on the team page)'
const REASON_MAX = 500

export class BotPause extends Service {
  static inject = ['botStore']

  private readonly holds = new Set<Hold>()
  private readonly waiters = new Set<() => void>()
  private wasPaused = false
  private disposed = false

  constructor(ctx: Context) {
    super(ctx, 'botPause')
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  async [Service.init](): Promise<void> {
    this.wasPaused = this.isPaused()
    // Disposal wakes every waiter (it then finds the service gone and gives up).
    this.ctx.effect(
      () => () => {
        this.disposed = true
        for (const wake of [...this.waiters]) wake()
      },
      'botPause:waiters',
    )
    // A resume saved by another process (or by this one) releases held work here.
    this.store.subscribe((state) => {
      const now = state.paused !== undefined
      const lifted = this.wasPaused && !now
      this.wasPaused = now
      if (lifted) this.released()
    })
  }

  /** The pause record while paused. */
  paused(): Readonly<PauseRecord> | undefined {
    return this.store.state.paused
  }

  isPaused(): boolean {
    return this.store.state.paused !== undefined
  }

  /** Why Bot-started work aimed at `target` is held right now, or undefined when it may go. */
  heldBecause(target: WorkTarget = {}): string | undefined {
    if (this.isPaused()) return PAUSED_REASON
    for (const hold of this.holds) {
      const reason = hold(target)
      if (reason) return reason
    }
    return undefined
  }

  /** The one check before starting Bot work: true while it must wait. */
  holdsBotWork(target: WorkTarget = {}): boolean {
    return this.heldBecause(target) !== undefined
  }

  /** Add a reason to hold work (a Cordis effect of the caller: disposed with it). Call `released()` when it lifts. */
  addHold(hold: Hold): () => void {
    return this.ctx.effect(() => {
      this.holds.add(hold)
      return () => {
        if (this.holds.delete(hold)) this.released()
      }
    }, 'botPause.addHold()')
  }

  /** Pause all Bot-started work. Idempotent: pausing a paused team keeps the first record. */
  async pause(by: string, reason?: string): Promise<PauseRecord> {
    const why = reason?.trim()
    if (why && why.length > REASON_MAX) throw new TeamRefusal('invalid', `The reason is longer than ${REASON_MAX} characters; nothing changed.`)
    await this.store.update((s) => {
      if (s.paused) return
      s.paused = { at: new Date().toISOString(), by, ...(why ? { reason: why } : {}) }
    })
    return this.store.state.paused!
  }

  /** Resume: held work is released in order. Idempotent. */
  async resume(): Promise<void> {
    if (!this.isPaused()) return
    await this.store.update((s) => {
      delete s.paused
    })
    // The store's subscription saw the change and released held work.
  }

  /** Held work may go again: tell every service that holds some (they re-check `holdsBotWork`). */
  released(): void {
    for (const wake of [...this.waiters]) wake()
    this.ctx.emit('bot-team/work-released')
  }

  /**
   * Resolves once work aimed at `target` is no longer held (at once if it is not), or when
   * `signal` aborts (the caller then checks the signal).
   */
  whenReleased(target: WorkTarget, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.disposed || signal?.aborted || !this.holdsBotWork(target)) {
          this.waiters.delete(check)
          signal?.removeEventListener('abort', check)
          resolve()
        }
      }
      this.waiters.add(check)
      signal?.addEventListener('abort', check)
      check()
    })
  }
}
