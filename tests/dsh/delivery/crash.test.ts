// A child process running real DSH in-process sends messages between Bots and is SIGKILLed at
// random moments, 50+ times; after restarts on the same home, every acknowledged message is exactly
// one `user/message` in its target's Session log, no delivery id appears twice anywhere, and every
// delivered message that wants its answer back has exactly one reply in the sender's chat.
// The runner (tests/support/crash-runs.ts) is the one `npm run soak` uses with 500 runs.
import { describe, expect, it } from 'vitest'
import { deliveryLine, runDeliveryCrashes } from '../../support/crash-runs.ts'

const RUNS = 52
const LANES = 2

describe('delivery crash safety', () => {
  it(`${RUNS} SIGKILLs while sending: every acknowledged message is delivered exactly once, none twice, and every one wanting an answer gets exactly one reply`, async () => {
    const stats = await runDeliveryCrashes({ runs: RUNS, lanes: LANES })
    expect(stats.problems).toEqual([])
    expect(stats).toMatchObject({ lost: 0, duplicated: 0, misplaced: 0, pendingLeft: 0, repliesLost: 0, repliesDuplicated: 0 })
    expect(stats.runs).toBeGreaterThanOrEqual(50)
    expect(stats.acknowledged).toBeGreaterThan(25)
    expect(stats.repliesExpected).toBeGreaterThan(8)
    console.log(deliveryLine('delivery crash', stats))
  }, 600_000)
})
