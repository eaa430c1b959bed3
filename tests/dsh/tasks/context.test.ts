// The context steward in a task Session (real DSH in-process, a small window): an attempt is one
// turn, so when a tool result pushes it past the hard line the step is not sent and the attempt
// moves to a new task Session of the same Bot at once — its package (the brief among the
// messages), the lease and the turn go on there, and the attempt is not counted as ended.
import { defineTool } from '@deepseek-ai/dsh-tools'
import { expect, it } from 'vitest'
import { lastToolResults, offersTool, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { calm, taskTeam, taskWhere, user } from './helpers.ts'

const track = disposedAfterEach()

it('past the hard line in the middle of an attempt, the attempt moves to a new task Session with its package and goes on there to its submit', async () => {
  const ada = (req: RecordedRequest): Reply => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    if (lastToolResults(req).some((r) => r.name === 'submit_task')) return { text: 'submitted from the new Session' }
    if (req.messages.some((m) => m.role === 'user' && m.text.startsWith('[Handoff · task-1]')))
      return { toolCalls: [{ name: 'submit_task', args: { note: 'went on' } }] }
    return { toolCalls: [{ name: 'fetch_log', args: {} }] }
  }
  const { host, ids } = await taskTeam(['Ada'], { Ada: ada }, { permissions: true, window: 8_000 })
  track(host)
  host.ctx.tools.register(
    defineTool({
      name: 'fetch_log',
      description: 'returns a long log',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      async execute() {
        return `LOG-START ${'line of the build log '.repeat(1_400)} LOG-END`
      },
    }),
  )
  const { ids: t } = await host.ctx.botTasks.plan(user, {
    tasks: [{ title: 'Review the log', brief: 'Review the build log BRIEF-77 and submit.', assignee: 'Ada' }],
  })
  const done = await taskWhere(host, t[0]!, (x) => x.status === 'review')
  await calm(host)
  await host.ctx.botContext.settled()
  const [attempt] = done.attempts
  expect(done.attempts).toHaveLength(1)
  expect(attempt).toMatchObject({ n: 1, outcome: 'submitted', moved: [done.sessionId] })
  const [first, second] = [attempt!.sessionId, done.sessionId!]
  expect(first).not.toBe(second)
  for (const sid of [first, second]) expect(host.ctx.botRoster.ownerOf(sid)).toEqual({ kind: 'task', botId: ids.Ada, taskId: t[0] })
  // no request of the first Session carried the log: the step past the line was never sent
  const requests = host.adapter.model.loopRequests()
  expect(requests.filter((r) => r.sessionId === first).some((r) => r.messages.some((m) => m.text.includes('LOG-END')))).toBe(false)
  // the second Session opened with the package: it says why and holds the brief; the turn went on there
  const opening = requests.find((r) => r.sessionId === second)!.messages.find((m) => m.role === 'user' && m.text.startsWith('[Handoff · task-1]'))!
  expect(opening.text).toContain('grew too long in the middle of its attempt')
  expect(opening.text).toContain('BRIEF-77')
  expect(host.ctx.botContext.stats.handoffs).toBe(1)
  expect(host.adapter.requests.filter((r) => r.label === 'handoff-note')).toHaveLength(0)
})
