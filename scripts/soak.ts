// `npm run soak`: SIGKILL the store's crash writer 500 times and the delivery child 500 times
// (issue 10), with the same runner and checks as the crash tests (tests/support/crash-runs.ts),
// and print one line each; `--tasks N` also kills the task ledger's writer N times (the runner of
// tests/dsh/tasks/crash.test.ts), `--plans N` a DSH process running plans with the whole plugin N
// times (tests/dsh/tasks/plan-crash.test.ts), `--worktrees N` the worktree child during clones,
// merges and removals (tests/dsh/worktrees/crash.test.ts's runner). Exits non-zero on any problem.
//
// usage: node scripts/soak.ts [--store N] [--delivery N] [--tasks N] [--plans N] [--worktrees N] [--lanes N]
import { deliveryLine, runDeliveryCrashes, runStoreCrashes, storeLine } from '../tests/support/crash-runs.ts'
import { planCrashLine, runPlanCrashes } from '../tests/support/plan-crash-runs.ts'
import { runTaskCrashes, taskCrashLine } from '../tests/support/task-crash-runs.ts'
import { runWorktreeCrashes, worktreeCrashLine } from '../tests/support/worktree-crash-runs.ts'

function count(name: string, fallback: number): number {
  const args = process.argv.slice(2)
  const i = args.indexOf(name)
  const raw = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0 || n > 100_000) {
    process.stderr.write(`soak: ${name} must be a whole number from 0 to 100000 (got "${raw}")\n`)
    process.exit(2)
  }
  return n
}

const storeKills = count('--store', 500)
const deliveryRuns = count('--delivery', 500)
const taskKills = count('--tasks', 0)
const planKills = count('--plans', 0)
const worktreeKills = count('--worktrees', 0)
const lanes = Math.max(1, count('--lanes', 2))
let failed = false
const report = (line: string, problems: string[]) => {
  process.stdout.write(`${line}\n`)
  for (const p of problems.slice(0, 20)) process.stdout.write(`  problem: ${p}\n`)
  if (problems.length > 20) process.stdout.write(`  … and ${problems.length - 20} more\n`)
  if (problems.length) failed = true
}

if (storeKills > 0) {
  const t = Date.now()
  const s = await runStoreCrashes({ kills: storeKills, lanes })
  report(`${storeLine('soak store', s)} seconds=${Math.round((Date.now() - t) / 1000)}`, s.problems)
}
if (deliveryRuns > 0) {
  const t = Date.now()
  const d = await runDeliveryCrashes({ runs: deliveryRuns, lanes })
  report(`${deliveryLine('soak delivery', d)} seconds=${Math.round((Date.now() - t) / 1000)}`, d.problems)
}
if (taskKills > 0) {
  const t = Date.now()
  const k = await runTaskCrashes({ kills: taskKills, lanes })
  report(`${taskCrashLine('soak tasks', k)} seconds=${Math.round((Date.now() - t) / 1000)}`, k.problems)
}
if (planKills > 0) {
  const t = Date.now()
  const p = await runPlanCrashes({ kills: planKills, lanes })
  report(`${planCrashLine('soak plans', p)} seconds=${Math.round((Date.now() - t) / 1000)}`, p.problems)
}
if (worktreeKills > 0) {
  const t = Date.now()
  const w = await runWorktreeCrashes({ kills: worktreeKills, lanes })
  report(`${worktreeCrashLine('soak worktrees', w)} seconds=${Math.round((Date.now() - t) / 1000)}`, w.problems)
}
process.exit(failed ? 1 : 0)
