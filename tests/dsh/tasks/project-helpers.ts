// Shared set-up for the project task tests: a team on the in-process DSH host with a shell, a real
// git project named as the team's, the plugin's folder outside temp (`tests/support/git-project.ts`),
// and a task-Session script that runs one command in its clone and submits with the output.
import path from 'node:path'
import { lastToolResults, offersTool, type RecordedRequest, type Reply, type Rule } from '../../../scripts/scripted-model/format.ts'
import type { DshHost } from '../../support/dsh-host.ts'
import { type GitHome, initProject, makeGitHome } from '../../support/git-project.ts'
import { taskTeam, user } from './helpers.ts'

/** What a Bot runs in its clone to commit everything (hooks off), with `message`. */
export const commitAll = (message = 'work') =>
  `git add -A && git -c user.name=Bot -c user.email=bot@example.com -c core.hooksPath=/dev/null commit -qm '${message}'`
export const COMMIT = commitAll()

/** A task Session's model: runs `command` once in its working folder, submits with the output as its note. */
export function works(command: string): (req: RecordedRequest) => Reply {
  return (req: RecordedRequest): Reply => {
    const last = lastToolResults(req)
    if (last.some((r) => r.name === 'submit_task')) return { text: 'Submitted.' }
    if (last.some((r) => r.name === 'bash')) return { toolCalls: [{ name: 'submit_task', args: { note: last[0]!.text.slice(0, 1000) } }] }
    if (offersTool(req, 'submit_task')) return { toolCalls: [{ name: 'bash', args: { command, description: 'work in the clone' } }] }
    return { text: 'ok' }
  }
}

/** A team whose Bots run `rules`, with a project of `src/a.txt` named; its git home and host go into `track` for clean-up. */
export async function projectTeamOf(
  rules: Record<string, Rule>,
  track: { homes: GitHome[]; hosts: DshHost[] },
  home?: string,
  config: Record<string, unknown> = {},
) {
  const g = makeGitHome()
  track.homes.push(g)
  initProject(g, { 'README.md': '# project\n', 'src/a.txt': 'one\n' })
  const worktrees = path.dirname(g.pluginRoot)
  const { host, ids } = await taskTeam(Object.keys(rules), rules, { shell: true, config: { worktrees, ...config }, ...(home ? { home } : {}) })
  track.hosts.push(host)
  await host.ctx.botTasks.setProject(user, { path: g.project, branch: 'main' })
  return { g, host, ids, worktrees }
}
