// The chain rule for tasks, on real DSH in-process with permission presets: a task a Bot planned
// runs at the planning turn's chain (its mode bounds the assignee's preset; one draw on its budget
// per attempt), and its submit opens the creator's review turn on that chain; a task the person
// created runs at the assignee's own preset on a budget of its own; approvals in a task turn are
// answered at once (nobody watches it).
import { expect, it } from 'vitest'
import { lastUserText, offersTool, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { personBudgetId } from '../../../src/roster/turns.ts'
import { disposedAfterEach, prompt, registerApprovalTool, type DshHost } from '../../support/dsh-host.ts'
import { calm, submits, taskTeam, taskWhere, user } from './helpers.ts'

const track = disposedAfterEach()

it("a Bot's plan runs at the planning turn's mode and on its budget, one draw per attempt, and the submit opens the creator's review turn on that chain", async () => {
  let host!: DshHost
  const modes: string[] = []
  const reviews: string[] = []
  const main = (req: RecordedRequest): Reply => {
    const text = lastUserText(req) ?? ''
    if (text === 'plan it') {
      void host.ctx.botTasks.plan({ kind: 'bot', sessionId: req.sessionId! }, { tasks: [{ title: 'Build', brief: 'Build it.', assignee: 'Ada' }] })
      return { text: 'planned' }
    }
    const review = /Task (task-\d+) .*waits for your review/.exec(text)
    if (review) {
      reviews.push(req.sessionId!)
      void host.ctx.botTasks.review({ kind: 'bot', sessionId: req.sessionId! }, review[1], 'accept')
      return { text: 'accepted' }
    }
    return { text: 'ok' }
  }
  const ada = (req: RecordedRequest): Reply => {
    if (offersTool(req, 'submit_task')) modes.push(String(host.ctx.botRoster.modeOf(req.sessionId!)))
    return (submits as (r: RecordedRequest) => Reply)(req)
  }
  const team = await taskTeam(['Ada'], { Ada: ada }, { permissions: true, main })
  host = track(team.host)
  await host.ctx.botRoster.update(user, 'Ada', { permissionPreset: 'danger-full-access' })
  const mainBot = host.ctx.botRoster.bots().find((b) => b.main)!
  const mainAgent = await host.ctx.botRoster.agentOf(mainBot.id)
  await prompt(host, mainAgent, 'plan it')
  const [task] = host.ctx.botTasks.list()
  await taskWhere(host, task!.id, (t) => t.status === 'done')
  await calm(host)
  const done = host.ctx.botTasks.board.get(task!.id)!
  // the task carries the planning turn's chain: one hop on, the person's budget, Main's mode and network level
  const planned = mainAgent.session.events.filter((e) => e.type === 'turn/start').at(-2)!
  const budget = personBudgetId(String(mainAgent.id), (planned.data as { turn: number }).turn)
  expect(done.chain).toEqual({ hop: 1, budget, mode: 'workspace-write', network: 'internet' })
  // Ada (danger-full-access) worked at workspace-write, the lowest along the chain
  expect(new Set(modes)).toEqual(new Set(['workspace-write']))
  // the budget: one draw for the attempt, one for the report that opened Main's review turn
  expect(host.ctx.botStore.state.budgets.find((b) => b.id === budget)?.used).toBe(2)
  expect(reviews).toEqual([String(mainAgent.id)])
  const reviewTurn = host.ctx.botRoster.turnOf(String(mainAgent.id))!
  expect(reviewTurn.origin).toEqual({ kind: 'chain', chain: { hop: 1, budget, mode: 'workspace-write', network: 'internet' }, from: 'message' })
})

it("a task the person created runs at the assignee's own preset, on a budget of its own", async () => {
  let host!: DshHost
  const modes: string[] = []
  const ada = (req: RecordedRequest): Reply => {
    if (offersTool(req, 'submit_task')) modes.push(String(host.ctx.botRoster.modeOf(req.sessionId!)))
    return (submits as (r: RecordedRequest) => Reply)(req)
  }
  const team = await taskTeam(['Ada'], { Ada: ada }, { permissions: true })
  host = track(team.host)
  await host.ctx.botRoster.update(user, 'Ada', { permissionPreset: 'danger-full-access' })
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'Build it.', assignee: 'Ada' }] })
  await taskWhere(host, ids[0]!, (t) => t.status === 'review')
  await calm(host)
  expect(new Set(modes)).toEqual(new Set(['danger-full-access']))
  expect(host.ctx.botStore.state.budgets.find((b) => b.id === `budget:${ids[0]}`)).toMatchObject({ openedBy: 'user', origin: ids[0], used: 1 })
  const session = host.ctx.botTasks.board.get(ids[0]!)!.sessionId!
  expect(host.ctx.botRoster.turnOf(session)?.origin).toEqual({ kind: 'chain', chain: { hop: 0, budget: `budget:${ids[0]}` }, from: 'message' })
})

it('an approval asked in a task turn is refused at once and waits in the inbox (nobody watches the turn), and the attempt goes on', async () => {
  const results: string[] = []
  const ada = (req: RecordedRequest): Reply => {
    const last = req.messages.at(-1)
    if (last?.role === 'tool' && last.toolName === 'needs_approval') {
      results.push(last.text)
      return { toolCalls: [{ name: 'submit_task', args: { note: 'asked, was refused, went on' } }] }
    }
    if (last?.role === 'tool') return { text: 'done' }
    if (offersTool(req, 'submit_task')) return { toolCalls: [{ name: 'needs_approval', args: {} }] }
    return { text: 'ok' }
  }
  const host = track((await taskTeam(['Ada'], { Ada: ada }, { permissions: true })).host)
  registerApprovalTool(host)
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'Build it.', assignee: 'Ada' }] })
  await taskWhere(host, ids[0]!, (t) => t.status === 'review')
  await calm(host)
  expect(results).toEqual([expect.stringMatching(/^Not run yet: this turn was not opened by the user, so the call waits for the user's approval as task-2/)])
  // the person's submitted task waits for their review, the call for their approval
  expect(host.ctx.botTasks.inbox().map((t) => [t.id, t.ask?.kind ?? t.status, t.ask?.approval?.tool])).toEqual([
    ['task-1', 'review', undefined],
    ['task-2', 'approval', 'needs_approval'],
  ])
})
