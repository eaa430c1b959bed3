// Git text and check output go through the secrets masker before they are stored or served (real
// DSH core, real git, DSH's sandbox): a secret a Bot puts in a commit subject never reaches the
// unpaired GET /project/log; one in a conflicting path never reaches the conflict record, the
// attempt's reason or the next attempt's brief; a check's output is masked before it is cut to its
// cap, so a secret the cut crosses is never left readable but for its first characters.
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { afterEach, describe, expect, it } from 'vitest'
import { WORKTREE_LIMITS } from '../../../src/worktrees/policy.ts'
import type { DshHost } from '../../support/dsh-host.ts'
import type { GitHome } from '../../support/git-project.ts'
import { agentOf, sourcedTexts, taskWhere, user } from './helpers.ts'
import { commitAll, projectTeamOf, works } from './project-helpers.ts'

let hosts: DshHost[] = []
let homes: GitHome[] = []
afterEach(async () => {
  for (const h of hosts) await h.dispose()
  for (const h of homes) h.cleanup()
  hosts = []
  homes = []
})

const VALUE = 'tok-5e4d3c2b1a0f9e8d7c6b'
/** Every piece of the value a reader could use: any 8 characters of it in a row. */
const pieces = Array.from({ length: VALUE.length - 7 }, (_, i) => VALUE.slice(i, i + 8))
const holdsPiece = (text: string) => pieces.some((p) => text.includes(p))

async function team(rules: Parameters<typeof projectTeamOf>[0]) {
  const t = await projectTeamOf(rules, { homes, hosts })
  await t.host.ctx.botSecrets.set('GH_TOKEN', { value: VALUE, scope: 'all' })
  return t
}

describe('masking wherever git text flows', () => {
  it('a secret in a commit subject is masked in the unpaired GET /project/log, from the submitted commit and from the merge', async () => {
    const { host } = await team({ Ada: works(`printf 'hi\\n' > greet.js && ${commitAll(`deploy with ${VALUE}`)}`) })
    await host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
    const log = async () => {
      const res = await fetch(`http://127.0.0.1:${host.ctx.webServer.port}/bot-team/api/project/log`)
      expect(res.status).toBe(200)
      return res.text()
    }
    await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Greet', brief: 'x', assignee: 'Ada', project: true }] })
    await taskWhere(host, 'task-1', (t) => t.status === 'review')
    const fromSubmitted = await log()
    expect(JSON.parse(fromSubmitted).branches['task-1']).toMatchObject({ from: 'submitted', recent: [{ subject: 'deploy with [secret:GH_TOKEN]' }] })
    expect(holdsPiece(fromSubmitted)).toBe(false)
    await host.ctx.botTasks.review(user, 'task-1', 'accept')
    await host.ctx.botTasks.settled()
    const fromMerge = await log()
    expect(JSON.parse(fromMerge).branches['task-1']).toMatchObject({ from: 'merge', recent: [{ subject: 'deploy with [secret:GH_TOKEN]' }] })
    expect(holdsPiece(fromMerge)).toBe(false)
  })

  it("a secret in a conflicting path is masked in the conflict record, the attempt's reason and the next attempt's brief", async () => {
    const file = `notes-${VALUE}.txt`
    const { host } = await team({
      Ada: works(`printf 'ada\\n' > ${file} && ${commitAll('Ada adds notes')}`),
      Bob: works(`printf 'bob\\n' > ${file} && ${commitAll('Bob adds notes')}`),
    })
    await host.ctx.botTasks.plan(user, {
      tasks: [
        { title: 'Ada adds notes', brief: 'x', assignee: 'Ada', project: true },
        { title: 'Bob adds notes', brief: 'x', assignee: 'Bob', project: true },
      ],
    })
    await taskWhere(host, 'task-1', (t) => t.status === 'review')
    await taskWhere(host, 'task-2', (t) => t.status === 'review')
    await host.ctx.botTasks.review(user, 'task-1', 'accept')
    const [back] = await host.ctx.botTasks.review(user, 'task-2', 'accept')
    expect(back!.worktree).toMatchObject({ merge: 'conflict', conflict: { paths: ['notes-[secret:GH_TOKEN].txt'] } })
    expect(back!.attempts[0]!.reason).toMatch(/conflicts in notes-\[secret:GH_TOKEN\]\.txt\. Integration head/)
    // the next attempt starts with the reason in its brief
    const again = await taskWhere(host, 'task-2', (t) => t.attempts.length === 2 && t.status !== 'working')
    // the person planned it: its attempts' messages are `person-task` ones
    const briefs = sourcedTexts(agentOf(host, again.attempts[1]!.sessionId), 'person-task')
    expect(briefs).toHaveLength(2)
    expect(briefs.at(-1)).toContain('notes-[secret:GH_TOKEN].txt')
    expect(holdsPiece(JSON.stringify(host.ctx.botTasks.board.get('task-2')))).toBe(false)
    expect(briefs.some(holdsPiece)).toBe(false)
  })

  it("masks a check's output before cutting it to its cap: a secret the cut crosses comes out whole as its placeholder, not as its tail", async () => {
    const { host } = await team({ Ada: works(`printf 'hi\\n' > greet.js && ${commitAll('Add greet.js')}`) })
    await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Greet', brief: 'x', assignee: 'Ada', project: true }] })
    await taskWhere(host, 'task-1', (t) => t.status === 'review')
    await host.ctx.botTasks.review(user, 'task-1', 'accept')
    // The person's full check writes 1000 bytes, the value, then just enough that the cap cuts after the value's first character.
    const cap = WORKTREE_LIMITS.checkOutputBytes
    const after = cap + 1 - VALUE.length
    const check = `head -c 1000 /dev/zero | tr '\\0' a; printf '%s' '${VALUE}'; head -c ${after} /dev/zero | tr '\\0' b; exit 1`
    const refused = await host.ctx.botTasks.releaseProject(user, check).then(
      () => '',
      (e: Error) => e.message,
    )
    expect(refused).toMatch(/^The full check failed \(exit 1, .*\) on [0-9a-f]{12}, so nothing was released:\n\[secret:GH_TOKEN\]b{100}/)
    expect(holdsPiece(refused)).toBe(false)
  })
})
