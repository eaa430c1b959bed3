/**
 * The clock the schedules run on: the system's, unless a `botClock` service is mounted (a test's
 * fake clock, advanced by hand so no test sleeps).
 *
 * Deliberately narrow: three functions, no drift correction — the schedules re-read `now()` on
 * every check and re-plan their one timer after every change.
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

/** setTimeout's longest delay is about 24.8 days; the schedules wake at least this often and re-plan. */
export const MAX_TIMER_MS = 6 * 60 * 60 * 1000
