// A child saving in a tight loop through the store's save path is SIGKILLed at random moments,
// 200+ times; after each kill state.json must parse, validate and equal one written revision.
// The runner (tests/support/crash-runs.ts) is the one `npm run soak` uses with 500 kills.
import { describe, expect, it } from 'vitest'
import { runStoreCrashes, storeLine } from '../../support/crash-runs.ts'

const KILLS = 200
const LANES = 2

describe('crash safety', () => {
  it(`survives ${KILLS} SIGKILLs mid-save: the file is always one whole written revision`, async () => {
    const stats = await runStoreCrashes({ kills: KILLS, lanes: LANES })
    expect(stats.problems).toEqual([])
    expect(stats).toMatchObject({ kills: KILLS, corrupt: 0, regressions: 0, badReopens: 0 })
    // every lane was re-opened by the real store along the way and at the end
    expect(stats.reopens).toBe(KILLS / 25 + LANES)
    // the loop really was saving when killed: each run saves at least once before it can be killed
    expect(stats.finalRevisions.every((r) => r >= KILLS / LANES)).toBe(true)
    console.log(storeLine('crash', stats))
  }, 300_000)
})
