/**
 * `botPause`: the person's pause switch (in team state) and the one seam where Bot-started work is
 * held — `holdsBotWork`, which delivery, rooms and schedules ask; other holds plug in with `addHold`;
 * `bot-team/work-released` when work may go again. Deliberately never cancels running turns, holds
 * the person's prompts or queues work itself.
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
