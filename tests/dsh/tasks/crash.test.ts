// The task store's writer, a real child process running the ledger workload with its outbox, is
// SIGKILLed 120 times at random moments; after each kill a reader checks the folder, and at the end
// a final run closes every task. The runner (tests/support/task-crash-runs.ts) lists the checks.
import { describe, expect, it } from 'vitest'
import { runTaskCrashes, taskCrashLine } from '../../support/task-crash-runs.ts'

const KILLS = 120
const LANES = 2

describe('task store crash safety', () => {
  it(`${KILLS} SIGKILLs during transitions lose no acknowledged transition, hand no intent over twice, and never leave the store unreadable`, async () => {
    const s = await runTaskCrashes({ kills: KILLS, lanes: LANES })
    console.log(taskCrashLine('tasks crash', s))
    expect(s.problems).toEqual([])
    expect(s).toMatchObject({ kills: KILLS, lost: 0, mismatched: 0, corrupt: 0, duplicated: 0, missing: 0, pendingLeft: 0, openLeft: 0, historyProblems: 0 })
    // the kills landed while the writer was working: transitions were acknowledged, journals compacted
    expect(s.acknowledged).toBeGreaterThan(KILLS)
    expect(s.compactions).toBeGreaterThan(0)
    // both crash windows of the outbox were hit: recorded but not handed over, handed over but not marked
    expect(s.recoveredHanded).toBeGreaterThan(0)
    expect(s.recoveredFound).toBeGreaterThan(0)
  }, 600_000)
})
