// SIGKILLs of the worktree child (git processes included) during clone creation, merges and
// removals: the integration branch never holds a half-made merge, no clone is left unknown, no
// half-made folder or ref lock survives recovery, and no Bot commit is lost. The soak runs it
// larger: `node scripts/soak.ts --store 0 --delivery 0 --worktrees 100`.
import { describe, expect, it } from 'vitest'
import { runWorktreeCrashes } from '../../support/worktree-crash-runs.ts'

describe('worktrees under SIGKILL', () => {
  it('12 kills during clones, merges and removals leave no half merge, no unknown clone and no lost commit', async () => {
    const s = await runWorktreeCrashes({ kills: 12 })
    expect(s.problems).toEqual([])
    expect(s).toMatchObject({ kills: 12, halfMerged: 0, unknownClones: 0, lostCommits: 0, leftovers: 0, staleLocks: 0 })
    expect(s.commits).toBeGreaterThan(0)
  }, 240_000)
})
