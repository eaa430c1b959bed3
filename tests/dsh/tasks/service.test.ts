// The task service on real DSH in-process: a planned task is dispatched to its assignee's own
// hidden task Session through the outbox, the attempt is one turn, a submit hands it to review,
// the creator is told, a review closes it; the Bot's own chat gets one line at the start and one
// at the end, neither starting a turn; a turn without a submit is an unsuccessful attempt.
import { expect, it } from 'vitest'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { agentOf, calm, injectedTexts, sourcedTexts, submits, taskTeam, taskWhere, user } from './helpers.ts'

const track = disposedAfterEach()

it('dispatches a planned task to a hidden task Session of its assignee, the turn submits it, the person reviews it, and the own chat gets a start and an end line that start no turn', async () => {
  const { host, ids: bots } = await taskTeam(['Ada'], { Ada: submits })
  const ada = bots.Ada!
  track(host)
  const tasks = host.ctx.botTasks
  const { ids: planned } = await tasks.plan(user, { tasks: [{ title: 'Write the parser', brief: 'Parse the config file.', assignee: 'Ada' }] })
  const id = planned[0]!
  const submitted = await taskWhere(host, id, (t) => t.status === 'review')
  await calm(host)
  // one attempt in one task Session, owned by Ada's task kind, not her own chat
  const sessionId = submitted.sessionId!
  expect(submitted.attempts).toEqual([expect.objectContaining({ n: 1, sessionId, botId: ada, outcome: 'submitted' })])
  expect(host.ctx.botRoster.ownerOf(sessionId)).toEqual({ kind: 'task', botId: ada, taskId: id })
  expect(host.ctx.botRoster.bot(ada)!.sessionParts.map((p) => p.sessionId)).not.toContain(sessionId)
  // the turn started from the brief, carrying the task's source
  const session = agentOf(host, sessionId)
  expect(sourcedTexts(session, 'person-task')).toEqual([expect.stringContaining('Parse the config file.')])
  const loop = host.adapter.model.loopRequests().filter((r) => r.sessionId === sessionId)
  expect(loop.map((r) => r.toolNames.filter((n) => n.endsWith('_task')).sort())).toEqual([
    ['submit_task', 'update_task'],
    ['submit_task', 'update_task'],
  ])
  // the person (the creator) is told in the Main Bot's chat, as a line
  const main = await host.ctx.botRoster.agentOf(host.ctx.botRoster.bots().find((b) => b.main)!.id)
  expect(injectedTexts(main, 'task-notice')).toEqual([expect.stringContaining(`Task ${id} "Write the parser" was submitted by ${ada}`)])
  // the review closes it
  await tasks.review(user, id, 'accept')
  await calm(host)
  expect(tasks.board.get(id)!.status).toBe('done')
  // Ada's own chat: the start and the end line, injected — no turn ran for them
  const own = await host.ctx.botRoster.agentOf(ada)
  const turnsBefore = own.session.events.filter((e) => e.type === 'turn/start').length
  expect(injectedTexts(own, 'task-notice')).toEqual([
    `Task ${id} "Write the parser" started in its own task Session (attempt 1).`,
    `Task ${id} "Write the parser" is done.`,
  ])
  expect(own.status).toBe('idle')
  expect(own.session.events.filter((e) => e.type === 'turn/start').length).toBe(turnsBefore)
  // the task Session was closed once the task was done
  expect(host.ctx.agents.get(session.id)).toBeUndefined()
})

it('a turn that ends without submit_task is an unsuccessful attempt: the task is tried again with the reason in its brief, and fails after three', async () => {
  const { host } = await taskTeam(['Bo'], { Bo: { text: 'I did not get to it.' } })
  track(host)
  const tasks = host.ctx.botTasks
  const { ids } = await tasks.plan(user, { tasks: [{ title: 'Tidy the docs', brief: 'Tidy docs/.', assignee: 'Bo' }] })
  const failed = await taskWhere(host, ids[0]!, (t) => t.status === 'failed')
  await calm(host)
  expect(failed.attempts.map((a) => [a.n, a.outcome, a.reason])).toEqual([
    [1, 'ended-without-submit', 'the turn ended without submit_task'],
    [2, 'ended-without-submit', 'the turn ended without submit_task'],
    [3, 'ended-without-submit', 'the turn ended without submit_task'],
  ])
  // the same task Session ran the three attempts; the third brief names the two before it
  const session = failed.attempts[0]!.sessionId
  expect(failed.attempts.every((a) => a.sessionId === session)).toBe(true)
  const briefs = host.adapter.model
    .loopRequests()
    .filter((r) => r.sessionId === session)
    .map((r) => r.messages.filter((m) => m.role === 'user' && m.text.startsWith(`Task ${ids[0]}`)).at(-1)?.text ?? '')
  expect(briefs.at(-1)).toContain('This is attempt 3 of at most 3.')
  expect(briefs.at(-1)).toContain('- attempt 2 (ended without a submit): the turn ended without submit_task')
})
