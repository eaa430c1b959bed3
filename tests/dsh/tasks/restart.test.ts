// A restart on the same home (a second host, as after DSH was stopped mid-attempt): the attempt
// whose turn was cut is ended as a crash, the task goes back to ready and is tried again in the
// same task Session, and nothing done before is done again.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { offersTool, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { signal } from '../delivery/helpers.ts'
import { calm, submits, taskTeam, taskWhere, user } from './helpers.ts'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
const track = disposedAfterEach()

it('an attempt cut by a restart ends as a crash; the next start tries it again in the same task Session; the task done before is not done again', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-tasks-restart-'))
  homes.push(home)
  const stalled = signal()
  const first = (req: RecordedRequest): Reply => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    if (req.messages.some((m) => m.role === 'user' && m.text.includes('Second'))) {
      stalled.fire()
      return { fail: 'stall' }
    }
    return (submits as (r: RecordedRequest) => Reply)(req)
  }
  const a = await taskTeam(['Ada'], { Ada: first }, { home })
  track(a.host)
  const { ids } = await a.host.ctx.botTasks.plan(user, {
    tasks: [
      { key: 'one', title: 'First', brief: 'First piece.', assignee: 'Ada' },
      { title: 'Second', brief: 'Second piece.', assignee: 'Ada', blockedBy: [] },
    ],
  })
  await taskWhere(a.host, ids[0]!, (t) => t.status === 'review')
  await a.host.ctx.botTasks.review(user, ids[0]!, 'accept')
  await stalled.fired
  const cut = a.host.ctx.botTasks.board.get(ids[1]!)!
  expect(cut.status).toBe('working')
  await a.host.dispose()

  const { startTeamHost } = await import('../../support/dsh-host.ts')
  const b = track(await startTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: submits } }, { home }))
  const again = await taskWhere(b, ids[1]!, (t) => t.status === 'review')
  await calm(b)
  expect(again.attempts.map((x) => [x.n, x.outcome])).toEqual([
    [1, 'crash'],
    [2, 'submitted'],
  ])
  expect(again.attempts[1]!.sessionId).toBe(cut.sessionId)
  expect(b.ctx.botTasks.crashed).toBe(1)
  // the first task stays done, and its Session ran no turn in this start
  expect(b.ctx.botTasks.board.get(ids[0]!)).toMatchObject({ status: 'done', attempts: [expect.objectContaining({ n: 1, outcome: 'submitted' })] })
  expect(b.adapter.model.loopRequests().filter((r) => r.sessionId === b.ctx.botTasks.board.get(ids[0]!)!.sessionId)).toEqual([])
})
