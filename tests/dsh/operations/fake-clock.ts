// A hand-advanced clock for the schedules (mounted as the `botClock` service, `startTeamHost`'s
// `clock`): no test sleeps.
import type { Clock } from '../../../src/core/clock.ts'
import type { DshHost } from '../../support/dsh-host.ts'
import { quiesce } from '../delivery/helpers.ts'

export class FakeClock implements Clock {
  private t: number
  private next = 0
  private readonly timers = new Map<number, { at: number; fn: () => void }>()

  constructor(start: string) {
    this.t = Date.parse(start)
  }

  now(): number {
    return this.t
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.next
    this.timers.set(id, { at: this.t + ms, fn })
    return id
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number)
  }

  /** Move time forward and run every timer that came due, earliest first. */
  advance(ms: number): void {
    this.t += ms
    for (;;) {
      const due = [...this.timers].filter(([, x]) => x.at <= this.t).sort((a, b) => a[1].at - b[1].at)[0]
      if (!due) return
      this.timers.delete(due[0])
      due[1].fn()
    }
  }
}

/** Advance the clock, then wait for the schedules' check and everything it started. */
export async function advance(host: DshHost, clock: FakeClock, ms: number): Promise<void> {
  clock.advance(ms)
  await host.ctx.botSchedules.settled()
  await quiesce(host)
  await host.ctx.botSchedules.settled()
}
