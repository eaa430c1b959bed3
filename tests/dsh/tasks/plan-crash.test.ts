// SIGKILLs of a DSH process running plans of the task ledger with the whole plugin (the soak runs
// many more: `node scripts/soak.ts --plans N`): no transition printed as durable is lost, no task
// is accepted twice, no attempt's turn runs twice, and after the restarts every task is done,
// failed or cancelled with nothing left to hand over.
import { expect, it } from 'vitest'
import { planCrashLine, runPlanCrashes } from '../../support/plan-crash-runs.ts'

it('12 SIGKILLs while plans run lose no durable transition, run no attempt twice, and leave every task closed', async () => {
  const s = await runPlanCrashes({ kills: 12, lanes: 2 })
  console.info(planCrashLine('plan crashes', s))
  expect(s.problems).toEqual([])
  expect(s).toMatchObject({ kills: 12, lost: 0, corrupt: 0, doneTwice: 0, ranTwice: 0, openLeft: 0, pendingLeft: 0 })
  expect(s.acknowledged).toBeGreaterThan(0)
}, 600_000)
