// The board's project data on DSH's real web server, the in-process DSH core and real git: a
// project task's card carries its branch, its check (summary and masked tail), its merge commit or
// its conflict's paths and both commits; GET /project/log shows the project's heads, the
// integration log and each task's commits from its clone or its merge, and whether the browser is paired.
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { DshHost } from '../../support/dsh-host.ts'
import type { GitHome } from '../../support/git-project.ts'
import { captureTerminal, pairBrowser, type WebTeamHost } from '../../support/web-host.ts'
import { taskWhere, user } from '../tasks/helpers.ts'
import { commitAll, projectTeamOf, works } from '../tasks/project-helpers.ts'

let hosts: DshHost[] = []
let homes: GitHome[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const h of hosts) await h.dispose()
  for (const h of homes) h.cleanup()
  hosts = []
  homes = []
})

async function served(rules: Parameters<typeof projectTeamOf>[0]) {
  const terminal = captureTerminal()
  const team = await projectTeamOf(rules, { homes, hosts })
  await team.host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
  const origin = `http://127.0.0.1:${team.host.ctx.webServer.port}`
  const web: WebTeamHost = {
    host: team.host,
    origin,
    async send(method, path, body, headers = { 'content-type': 'application/json' }) {
      const res = await fetch(`${origin}/bot-team/api${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
      return { status: res.status, body: (await res.json()) as any }
    },
  }
  return { ...team, web, terminal }
}

const cardOf = async (web: WebTeamHost, id: string) => (await web.send('GET', '/tasks/board')).body.cards.find((c: { id: string }) => c.id === id)
const SHA = /^[0-9a-f]{40}$/

describe("the board's project data", () => {
  it('shows a task card its branch, commits, passed check with its tail, then its merge commit and the integration log line', async () => {
    const { g, host, web, terminal } = await served({ Ada: works(`printf 'hi\\n' > greet.js && ${commitAll('Add greet.js')}`) })
    const { ids } = await host.ctx.botTasks.plan(user, {
      tasks: [{ title: 'Add greeting', brief: 'Write greet.js.', assignee: 'Ada', project: true, check: 'echo checked-greet; test -f greet.js' }],
    })
    await taskWhere(host, ids[0]!, (t) => t.status === 'review')
    const card = await cardOf(web, ids[0]!)
    expect(card).toMatchObject({
      branch: 'team/task-1-add-greeting',
      check: 'passed',
      checkSummary: expect.stringMatching(/^passed \(exit 0, /),
      checkTail: 'checked-greet',
    })
    expect(card.merge).toBeUndefined()
    const before = await web.send('GET', '/project/log')
    expect(before.status).toBe(200)
    expect(before.body).toMatchObject({ paired: false, log: [], project: { path: g.project, branch: 'main', integrationHead: expect.stringMatching(SHA) } })
    expect(before.body.project.targetHead).toBe(g.sh(g.project, 'rev-parse', 'main').trim())
    expect(before.body.branches[ids[0]!]).toMatchObject({ branch: 'team/task-1-add-greeting', from: 'submitted', commits: 1, more: false })
    expect(before.body.branches[ids[0]!].recent).toEqual([{ commit: expect.stringMatching(SHA), subject: 'Add greet.js' }])

    await host.ctx.botTasks.review(user, ids[0]!, 'accept')
    await host.ctx.botTasks.settled()
    const after = await web.send('GET', '/project/log')
    const head = after.body.project.integrationHead
    expect(head).not.toBe(before.body.project.integrationHead)
    expect(after.body.log).toEqual([
      {
        commit: head,
        at: expect.any(Number),
        subject: 'Merge team/task-1-add-greeting (task-1)',
        taskId: 'task-1',
        title: 'Add greeting',
        branch: 'team/task-1-add-greeting',
      },
    ])
    expect(await cardOf(web, ids[0]!)).toMatchObject({ merge: 'merged', mergeCommit: head })
    // Its clone is gone: the commits are read from the merge's two parents.
    expect(after.body.branches[ids[0]!]).toMatchObject({ from: 'merge', commits: 1, recent: [{ subject: 'Add greet.js' }] })
    const paired = await pairBrowser(web, terminal)
    expect((await web.send('GET', '/project/log', undefined, { 'x-bot-team-pairing': paired })).body.paired).toBe(true)
  })

  it("shows a conflict's paths and both sides' commits on the card, and the sent-back task's commits from its clone", async () => {
    const { host, web } = await served({
      Ada: works(`printf 'ada\\n' > src/a.txt && ${commitAll('Ada edits a')}`),
      Bob: works(`printf 'bob\\n' > src/a.txt && ${commitAll('Bob edits a')}`),
    })
    await host.ctx.botTasks.plan(user, {
      tasks: [
        { title: 'Ada edits a', brief: 'x', assignee: 'Ada', project: true },
        { title: 'Bob edits a', brief: 'x', assignee: 'Bob', project: true },
      ],
    })
    await taskWhere(host, 'task-1', (t) => t.status === 'review')
    await taskWhere(host, 'task-2', (t) => t.status === 'review')
    await host.ctx.botTasks.review(user, 'task-1', 'accept')
    await host.ctx.botTasks.review(user, 'task-2', 'accept')
    const card = await cardOf(web, 'task-2')
    const merged = await cardOf(web, 'task-1')
    expect(card).toMatchObject({
      merge: 'conflict',
      conflict: { paths: ['src/a.txt'], pathCount: 1, ours: merged.mergeCommit, theirs: expect.stringMatching(SHA) },
    })
    const log = (await web.send('GET', '/project/log')).body
    expect(log.log.map((e: { taskId: string }) => e.taskId)).toEqual(['task-1'])
    expect(log.branches['task-2']).toMatchObject({ branch: 'team/task-2-bob-edits-a', recent: [{ commit: card.conflict.theirs, subject: 'Bob edits a' }] })
  })

  it('says the integration branch is made with the first project task until then, and refuses other methods on the log', async () => {
    const { host, web } = await served({ Ada: works('true') })
    expect((await web.send('GET', '/project/log')).body).toMatchObject({ project: { branch: 'main', integrationHead: null }, log: [], branches: {} })
    expect((await web.send('GET', '/project/log')).body.note).toMatch(/made when the first project task starts/)
    expect((await web.send('POST', '/project/log', {})).status).toBe(405)
    expect(host.ctx.botTasks.project()).not.toBeNull()
  })
})
