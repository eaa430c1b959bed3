// The task tools on real DSH in-process, called by the scripted model: a Main Bot plans with
// plan_tasks in the person's turn, the assignee's task Session submits with submit_task, the Main
// Bot reviews with review_task in the turn the submit opened, and the blocked task follows; bad
// calls are refused with the reason and change nothing; each role is offered only its tools.
import { expect, it } from 'vitest'
import { lastToolResults, lastUserText, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt } from '../../support/dsh-host.ts'
import { calm, submits, taskTeam, taskWhere } from './helpers.ts'

const track = disposedAfterEach()

it('plan_tasks, submit_task and review_task carry a two-task plan to done, the second starting once the first is accepted', async () => {
  const answers: string[] = []
  const main = (req: RecordedRequest): Reply => {
    const results = lastToolResults(req)
    if (results.length) {
      answers.push(...results.map((r) => `${r.name}: ${r.text}`))
      return { text: 'ok' }
    }
    const text = lastUserText(req) ?? ''
    if (text === 'split the work')
      return {
        toolCalls: [
          {
            name: 'plan_tasks',
            args: {
              tasks: [
                { key: 'parse', title: 'Parse', brief: 'Parse the file.', assignee: 'Ada' },
                { title: 'Report', brief: 'Report on the parse.', assignee: 'Ada', blocked_by: ['parse'] },
              ],
            },
          },
        ],
      }
    const review = /Task (task-\d+) .*waits for your review/.exec(text)
    if (review) return { toolCalls: [{ name: 'review_task', args: { task: review[1], verdict: 'accept' } }] }
    return { text: 'ok' }
  }
  const { host } = await taskTeam(['Ada'], { Ada: submits }, { main })
  track(host)
  const mainAgent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.bots().find((b) => b.main)!.id)
  await prompt(host, mainAgent, 'split the work')
  await taskWhere(host, 'task-2', (t) => t.status === 'done')
  await calm(host)
  expect(answers[0]).toMatch(/^plan_tasks: Planned 2 task\(s\):\ntask-1 \[ready\] Parse · bot-2\ntask-2 \[blocked\] Report · bot-2$/)
  expect(answers.filter((a) => a.startsWith('review_task'))).toEqual([
    expect.stringMatching(/^review_task: task-1 \[done\] Parse · bot-2 · attempt 1\ntask-2 \[ready\] Report/),
    expect.stringMatching(/^review_task: task-2 \[done\] Report/),
  ])
  const [t1, t2] = [host.ctx.botTasks.board.get('task-1')!, host.ctx.botTasks.board.get('task-2')!]
  expect(Date.parse(t2.attempts[0]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(t1.history.find((h) => h.what === 'accepted')!.at))
})

it('each role is offered its task tools only: a Main Bot plans and reviews, a plain Bot has none in its own chat, a task Session submits and updates', async () => {
  const { host, ids } = await taskTeam(['Ada'], { Ada: submits })
  track(host)
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'hello')
  await prompt(host, await host.ctx.botRoster.agentOf(ids.Ada!), 'hello')
  const toolsOf = (sid: string) =>
    host.adapter.model
      .loopRequests()
      .filter((r) => r.sessionId === sid)
      .at(-1)!
      .toolNames.filter((n) => n.endsWith('_task') || n.endsWith('_tasks'))
  expect(toolsOf(main.sessionParts.at(-1)!.sessionId).sort()).toEqual(['cancel_task', 'list_tasks', 'plan_tasks', 'review_task'])
  expect(toolsOf(host.ctx.botRoster.bot(ids.Ada!)!.sessionParts.at(-1)!.sessionId)).toEqual([])
  const { ids: t } = await host.ctx.botTasks.plan({ kind: 'user' }, { tasks: [{ title: 'x', brief: 'x', assignee: 'Ada' }] })
  const done = await taskWhere(host, t[0]!, (x) => x.status === 'review')
  expect(toolsOf(done.sessionId!).sort()).toEqual(['submit_task', 'update_task'])
})

it('bad calls are refused with the reason and change nothing: a plan over the limit, a review of its own task, an unknown task', async () => {
  const answers: string[] = []
  const main = (req: RecordedRequest): Reply => {
    const results = lastToolResults(req)
    if (results.length) {
      answers.push(...results.map((r) => r.text))
      return { text: 'ok' }
    }
    const text = lastUserText(req) ?? ''
    if (text === 'too many')
      return { toolCalls: [{ name: 'plan_tasks', args: { tasks: Array.from({ length: 51 }, (_, i) => ({ title: `t${i}`, brief: 'b' })) } }] }
    if (text === 'mine') return { toolCalls: [{ name: 'plan_tasks', args: { tasks: [{ title: 'Mine', brief: 'b', assignee: 'Main' }] } }] }
    if (text === 'review it') return { toolCalls: [{ name: 'review_task', args: { task: 'task-1', verdict: 'accept' } }] }
    if (text === 'nothing') return { toolCalls: [{ name: 'cancel_task', args: { task: 'task-99' } }] }
    return { text: 'ok' }
  }
  const { host } = await taskTeam(['Ada'], { Ada: submits }, { main })
  track(host)
  const mainBot = host.ctx.botRoster.bots().find((b) => b.main)!
  const agent = await host.ctx.botRoster.agentOf(mainBot.id)
  await host.ctx.botPause.pause('user')
  await prompt(host, agent, 'too many')
  expect(answers.at(-1)).toBe('Refused: A plan holds at most 50 tasks; this one has 51. Split it into smaller plans. Nothing was created.')
  expect(host.ctx.botTasks.board.size).toBe(0)
  await prompt(host, agent, 'mine')
  expect(host.ctx.botTasks.board.get('task-1')!.assignee).toMatchObject({ kind: 'bot', botId: mainBot.id })
  await prompt(host, agent, 'review it')
  expect(answers.at(-1)).toBe('Refused: A Bot never reviews its own task. Its creator, a Main Bot or the user reviews it. Nothing changed.')
  await prompt(host, agent, 'nothing')
  expect(answers.at(-1)).toMatch(/^Refused: No task "task-99" exists\. list_tasks shows the team's tasks\./)
  expect(host.ctx.botTasks.board.get('task-1')!.status).toBe('ready')
})
