// Dispatch on real DSH in-process: held while the team is paused (not lost), within the team's
// Bot-started turns at once, one running task per Bot; a lease that runs out ends the attempt and
// its turn (on the plugin's clock); cancelling a running task stops its turn; deleting a Bot
// returns its tasks unassigned and tells their creators, and ends a running one's Session; two
// claims at once, one wins.
import { expect, it } from 'vitest'
import { lastUserText, offersTool, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { claim } from '../../../src/tasks/policy.ts'
import { disposedAfterEach, prompt } from '../../support/dsh-host.ts'
import { FakeClock } from '../operations/fake-clock.ts'
import { signal } from '../delivery/helpers.ts'
import { calm, injectedTexts, submits, taskTeam, taskWhere, user } from './helpers.ts'

const track = disposedAfterEach()

it('a task waits while the team is paused, and starts when the person resumes', async () => {
  const { host } = await taskTeam(['Ada'], { Ada: submits })
  track(host)
  await host.ctx.botPause.pause('user', 'lunch')
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'Build it.', assignee: 'Ada' }] })
  await calm(host)
  expect(host.ctx.botTasks.board.get(ids[0]!)).toMatchObject({ status: 'ready', attempts: [] })
  await host.ctx.botPause.resume()
  await taskWhere(host, ids[0]!, (t) => t.status === 'review')
  expect(host.ctx.botTasks.board.get(ids[0]!)!.attempts.map((a) => a.outcome)).toEqual(['submitted'])
})

it('never runs more Bot-started turns at once than the team limit, and one task per Bot: the rest wait their turn', async () => {
  let running = 0
  let most = 0
  // Each task turn's first answer takes a while, so turns dispatch allowed at once overlap.
  const held = (req: RecordedRequest): Reply => {
    if (offersTool(req, 'submit_task') && req.messages.at(-1)?.role !== 'tool') {
      running++
      most = Math.max(most, running)
      return { toolCalls: [{ name: 'submit_task', args: {} }], delayMs: 150 }
    }
    if (offersTool(req, 'submit_task')) running--
    return { text: 'ok' }
  }
  const { host } = await taskTeam(['Ada', 'Bo', 'Cy'], { Ada: held, Bo: held, Cy: held }, { config: { team: { botTurnsAtOnce: 2 } as never } })
  track(host)
  const { ids } = await host.ctx.botTasks.plan(user, {
    tasks: [
      { title: 'a1', brief: 'x', assignee: 'Ada' },
      { title: 'a2', brief: 'x', assignee: 'Ada' },
      { title: 'b1', brief: 'x', assignee: 'Bo' },
      { title: 'c1', brief: 'x', assignee: 'Cy' },
    ],
  })
  for (const id of ids) await taskWhere(host, id, (t) => t.status === 'review')
  await calm(host)
  expect(most).toBeLessThanOrEqual(2)
  expect(most).toBe(2)
  // Ada's two tasks ran one after the other
  const [a1, a2] = [host.ctx.botTasks.board.get(ids[0]!)!, host.ctx.botTasks.board.get(ids[1]!)!]
  expect(Date.parse(a2.attempts[0]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(a1.attempts[0]!.endedAt!))
})

it("a lease that runs out on the plugin's clock ends the attempt and cancels its turn; the task is tried again", async () => {
  const clock = new FakeClock('2026-03-01T09:00:00Z')
  const stalled = signal()
  let calls = 0
  const ada = (req: RecordedRequest): Reply => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    calls++
    if (calls === 1) {
      stalled.fire()
      return { fail: 'stall' }
    }
    return (submits as (r: RecordedRequest) => Reply)(req)
  }
  const { host } = await taskTeam(['Ada'], { Ada: ada }, { clock, config: { team: { taskLeaseMs: 60_000 } as never } })
  track(host)
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'Build it.', assignee: 'Ada' }] })
  await stalled.fired
  await host.ctx.botTasks.settled()
  clock.advance(61_000)
  const done = await taskWhere(host, ids[0]!, (t) => t.status === 'review')
  await calm(host)
  expect(done.attempts.map((a) => [a.n, a.outcome, a.reason])).toEqual([
    [1, 'lease-expired', 'the lease ran out'],
    [2, 'submitted', null],
  ])
})

it('cancelling a running task stops its turn, and the creator is told when someone else cancelled it', async () => {
  const stalled = signal()
  const ada = (req: RecordedRequest): Reply => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    stalled.fire()
    return { fail: 'stall' }
  }
  let host!: Awaited<ReturnType<typeof taskTeam>>['host']
  const main = (req: RecordedRequest): Reply => {
    if (lastUserText(req) === 'plan' && req.messages.at(-1)?.role !== 'assistant')
      void host.ctx.botTasks.plan({ kind: 'bot', sessionId: req.sessionId! }, { tasks: [{ title: 'Long', brief: 'x', assignee: 'Ada' }] })
    return { text: 'ok' }
  }
  const team = await taskTeam(['Ada'], { Ada: ada }, { main })
  host = track(team.host)
  const mainAgent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.bots().find((b) => b.main)!.id)
  await prompt(host, mainAgent, 'plan')
  await stalled.fired
  const [task] = host.ctx.botTasks.list()
  const session = host.ctx.botTasks.board.get(task!.id)!.sessionId!
  await host.ctx.botTasks.cancel(user, task!.id, 'not needed any more')
  await calm(host)
  const cancelled = host.ctx.botTasks.board.get(task!.id)!
  expect(cancelled).toMatchObject({ status: 'cancelled', lease: null })
  expect(cancelled.attempts.map((a) => a.outcome)).toEqual(['withdrawn'])
  const turnEnds = host.ctx.agents.get(mainAgent.id)!.session.events.filter((e) => e.type === 'turn/end').length
  expect(turnEnds).toBeGreaterThan(0)
  expect(host.ctx.agents.get(session as never)).toBeUndefined()
  // Main (the creator) was told, in a turn of its own
  expect(mainAgent.session.events.some((e) => e.type === 'user/message' && JSON.stringify(e.data).includes('was cancelled: not needed any more'))).toBe(true)
})

it('deleting a Bot returns its tasks to ready without an assignee and tells their creators', async () => {
  const { host } = await taskTeam(['Ada', 'Bo'], {})
  track(host)
  await host.ctx.botPause.pause('user')
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'For Ada', brief: 'x', assignee: 'Ada' }] })
  await host.ctx.botRoster.delete(user, 'Ada', 'left the team')
  await calm(host)
  expect(host.ctx.botTasks.board.get(ids[0]!)).toMatchObject({ status: 'ready', assignee: null })
  const main = await host.ctx.botRoster.agentOf(host.ctx.botRoster.bots().find((b) => b.main)!.id)
  expect(injectedTexts(main, 'task-notice')).toEqual([expect.stringMatching(/no longer has an assignee \(.*was deleted: left the team\); it is ready/)])
})

it("deleting a Bot in the middle of its task's turn ends that task Session, and the task goes back to ready without an assignee", async () => {
  const stalled = signal()
  const ada = (req: RecordedRequest): Reply => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    stalled.fire()
    return { fail: 'stall' }
  }
  const { host } = await taskTeam(['Ada'], { Ada: ada })
  track(host)
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Long', brief: 'x', assignee: 'Ada' }] })
  await stalled.fired
  const session = host.ctx.botTasks.board.get(ids[0]!)!.sessionId!
  expect(host.ctx.agents.get(session as never)?.status).toBe('running')
  await host.ctx.botRoster.delete(user, 'Ada', 'left the team')
  await calm(host)
  expect(host.ctx.agents.get(session as never)).toBeUndefined()
  const task = host.ctx.botTasks.board.get(ids[0]!)!
  expect(task).toMatchObject({ status: 'ready', assignee: null, lease: null })
  expect(task.attempts.map((a) => a.outcome)).toEqual(['withdrawn'])
})

it('two claims of one task at once: one wins, the other is refused and changes nothing', async () => {
  const { host, ids: bots } = await taskTeam(['Ada', 'Bo'], {})
  track(host)
  await host.ctx.botPause.pause('user')
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Open', brief: 'x' }] })
  const now = new Date().toISOString()
  const take = (botId: string) =>
    host.ctx.botTasks.transact((view) => claim(view, ids[0]!, { now, actor: { kind: 'system' }, botId, sessionId: `s-${botId}`, leaseMs: 60_000 }))
  const [a, b] = await Promise.all([take(bots.Ada!), take(bots.Bo!)])
  expect([a.ok, b.ok]).toEqual([true, false])
  expect(!b.ok && b.refusal).toMatch(/already being worked on \(attempt 1/)
  expect(host.ctx.botTasks.board.get(ids[0]!)).toMatchObject({
    status: 'working',
    assignee: { botId: bots.Ada },
    attempts: [expect.objectContaining({ n: 1 })],
  })
})
