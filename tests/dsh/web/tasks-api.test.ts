// The tasks API on a real DSH web server, in-process, acting as the person: planning, reviewing
// and giving a task to another Bot need a paired browser (a Bot's shell cannot); cancelling does
// not; bad input gets the ledger's sentence and creates nothing.
import { beforeEach, describe, expect, it } from 'vitest'
import { webTeamHostPerTest } from '../../support/web-host.ts'

const web = webTeamHostPerTest()
let ids: Record<string, string>
beforeEach(async () => {
  ids = {}
  for (const name of ['Ada', 'Bob']) ids[name] = (await web().send('POST', '/bots', { name })).body.bot.id
  // Held, so the tasks stay where the requests put them (no task turn runs).
  await web().host.ctx.botPause.pause('user')
})

const plan = {
  tasks: [
    { key: 'a', title: 'Parse', brief: 'Parse the file.', assignee: 'Ada' },
    { title: 'Report', brief: 'Write it up.', blockedBy: ['a'] },
  ],
}

describe('the tasks API (acting as the person)', () => {
  it('creates a plan only from a paired browser; lists it; shows why a blocked task waits', async () => {
    const refused = await web().send('POST', '/tasks', plan)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toMatch(/paired team page/)
    expect(web().host.ctx.botTasks.board.size).toBe(0)
    const paired = await web().pairedHeaders()
    const created = await web().send('POST', '/tasks', plan, paired)
    expect(created).toMatchObject({ status: 201, body: { ids: ['task-1', 'task-2'] } })
    expect(created.body.tasks.map((t: any) => [t.id, t.status, t.assignee?.botId ?? null, t.creator.kind])).toEqual([
      ['task-1', 'ready', ids.Ada, 'user'],
      ['task-2', 'blocked', null, 'user'],
    ])
    const listed = await web().send('GET', '/tasks?status=blocked')
    expect(listed.body.tasks.map((t: any) => [t.id, t.waitsFor])).toEqual([['task-2', 'waits for task-1 (ready)']])
    expect((await web().send('GET', '/tasks?bot=Ada')).body.tasks.map((t: any) => t.id)).toEqual(['task-1'])
    expect(await web().send('GET', '/tasks/task-1')).toMatchObject({ status: 200, body: { task: { id: 'task-1', title: 'Parse' } } })
    expect(await web().send('GET', '/tasks/task-9')).toMatchObject({ status: 404 })
  })

  it('refuses bad plans whole with the reason: an over-long title, an unknown Bot, a cycle, more than 50 tasks', async () => {
    const paired = await web().pairedHeaders()
    const long = await web().send('POST', '/tasks', { tasks: [{ title: 'x'.repeat(121), brief: 'b' }] }, paired)
    expect(long).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/title: must be at most 120 characters \(it has 121\).*Nothing was created/) },
    })
    const unknown = await web().send('POST', '/tasks', { tasks: [{ title: 't', brief: 'b', assignee: 'Zed' }] }, paired)
    expect(unknown.body.error).toMatch(/assigned to "Zed", which is not a Bot of the team/)
    const cycle = await web().send(
      'POST',
      '/tasks',
      {
        tasks: [
          { key: 'a', title: 'A', brief: 'b', blockedBy: ['b'] },
          { key: 'b', title: 'B', brief: 'b', blockedBy: ['a'] },
        ],
      },
      paired,
    )
    expect(cycle.body.error).toMatch(/The plan has a cycle: 'a' → 'b' → 'a'/)
    const many = await web().send('POST', '/tasks', { tasks: Array.from({ length: 51 }, (_, i) => ({ title: `t${i}`, brief: 'b' })) }, paired)
    expect(many.body.error).toMatch(/A plan holds at most 50 tasks; this one has 51/)
    expect(web().host.ctx.botTasks.board.size).toBe(0)
  })

  it('gives a task to another Bot, cancels it and reviews only a submitted task, each only from a paired browser', async () => {
    const paired = await web().pairedHeaders()
    await web().send('POST', '/tasks', plan, paired)
    const unpaired = await web().send('POST', '/tasks/task-1/reassign', { to: 'Bob' })
    expect(unpaired.status).toBe(403)
    expect(web().host.ctx.botTasks.board.get('task-1')!.assignee).toMatchObject({ kind: 'bot', botId: ids.Ada })
    const moved = await web().send('POST', '/tasks/task-1/reassign', { to: 'Bob', reason: 'Ada is busy' }, paired)
    expect(moved).toMatchObject({ status: 200, body: { task: { assignee: { botId: ids.Bob } } } })
    expect((await web().send('POST', '/tasks/task-1/review', { verdict: 'accept' })).status).toBe(403)
    const early = await web().send('POST', '/tasks/task-1/review', { verdict: 'accept' }, paired)
    expect(early).toMatchObject({ status: 400, body: { error: expect.stringMatching(/is ready and not being worked on, so it cannot be reviewed/) } })
    expect((await web().send('POST', '/tasks/task-1/cancel', { reason: 'a shell on loopback' })).status).toBe(403)
    expect(web().host.ctx.botTasks.board.get('task-1')!.status).toBe('ready')
    const cancelled = await web().send('POST', '/tasks/task-1/cancel', { reason: 'not needed' }, paired)
    expect(cancelled).toMatchObject({ status: 200, body: { task: { status: 'cancelled' } } })
    expect((await web().send('GET', '/tasks/task-2')).body.task.waitsFor).toMatch(/blocked by task-1 \(cancelled\), which will not be done/)
    expect((await web().send('POST', '/tasks/task-1/cancel', { reason: 'x'.repeat(3000) }, paired)).status).toBe(400)
  })
})
