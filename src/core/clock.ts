/**
 * The plugin's clock (the schedules' timers, the task leases): the system's, unless a `botClock`
 * service is mounted (a test's fake clock, advanced by hand so no test sleeps).
 *
 * Deliberately narrow: three functions, no drift correction — its users re-read `now()` on every
 * check and re-plan their timers after every change.
 */
export interface Clock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

declare module '@deepseek-ai/cordis' {
  interface Context {
    botClock: Clock
  }
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms)
    handle.unref?.()
    return handle
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

/** setTimeout's longest delay is about 24.8 days; a timer on this clock wakes at least this often and re-plans. */
export const MAX_TIMER_MS = 6 * 60 * 60 * 1000
