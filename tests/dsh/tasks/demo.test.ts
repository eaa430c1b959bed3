// The offline demo model on real DSH in-process: told "make a plan to …", the Main Bot plans three
// tasks in a row for itself with plan_tasks; its task Session hands the first in with submit_task;
// once the person accepts, the next starts and is handed in too — a small plan moving across the board.
import { expect, it } from 'vitest'
import { demoReply } from '../../../scripts/demo-script.ts'
import { disposedAfterEach, prompt } from '../../support/dsh-host.ts'
import { calm, taskTeam, taskWhere, user } from './helpers.ts'

const track = disposedAfterEach()

it('the demo model plans three tasks for its Bot on "make a plan to …" and hands each in as it starts', async () => {
  const { host } = await taskTeam([], {}, { main: demoReply })
  track(host)
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'make a plan to write a launch note')
  const first = await taskWhere(host, 'task-1', (t) => t.status === 'review')
  expect(first).toMatchObject({ title: 'Outline: write a launch note', assignee: { kind: 'bot', botId: main.id } })
  expect(host.ctx.botTasks.board.get('task-2')).toMatchObject({ status: 'blocked', blockedBy: ['task-1'], title: 'Draft: write a launch note' })
  expect(host.ctx.botTasks.board.get('task-3')).toMatchObject({ status: 'blocked', blockedBy: ['task-2'] })
  await host.ctx.botTasks.review(user, 'task-1', 'accept')
  const second = await taskWhere(host, 'task-2', (t) => t.status === 'review')
  expect(second.artifacts.map((a) => a.value)).toEqual(['Done by the offline demo model.'])
  await calm(host)
})
