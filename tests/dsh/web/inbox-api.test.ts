// The inbox API on a real DSH web server, in-process: it lists what waits for the person, oldest
// first with its kind; answering needs a paired browser (a Bot's shell gets 403 and changes
// nothing); bad input is a 400 that changes nothing; unknown tasks and methods are refused.
import { beforeEach, describe, expect, it } from 'vitest'
import { ask } from '../../../src/tasks/asks.ts'
import { webTeamHostPerTest } from '../../support/web-host.ts'

const web = webTeamHostPerTest()
let ada = ''
beforeEach(async () => {
  ada = (await web().send('POST', '/bots', { name: 'Ada' })).body.bot.id
  // Held, so an answer's turn waits (no model turn runs) and the ledger stays where the requests put it.
  await web().host.ctx.botPause.pause('user')
  const chat = (await web().host.ctx.botRoster.agentOf(ada)).id
  const r = await web().host.ctx.botTasks.transact((view) =>
    ask(
      view,
      { question: 'Which licence?', choices: ['MIT', 'Apache-2.0'] },
      { now: new Date().toISOString(), botId: ada, sessionId: String(chat), chain: { hop: 0 } },
    ),
  )
  expect(r.ok).toBe(true)
})

describe('the inbox API', () => {
  it('lists a question with its kind and deadline; the answer needs a paired browser; a second answer is refused', async () => {
    const listed = await web().send('GET', '/inbox')
    expect(listed).toMatchObject({
      status: 200,
      body: { count: 1, items: [{ id: 'task-1', assignee: { kind: 'user' }, inbox: { kind: 'question', deadline: expect.any(String) } }] },
    })
    const shell = await web().send('POST', '/inbox/task-1/answer', { choice: 0 })
    expect(shell).toMatchObject({ status: 403, body: { error: expect.stringMatching(/paired team page/) } })
    expect(web().host.ctx.botTasks.board.get('task-1')!.status).toBe('ready')
    const paired = await web().pairedHeaders()
    const answered = await web().send('POST', '/inbox/task-1/answer', { choice: 1 }, paired)
    expect(answered).toMatchObject({
      status: 200,
      body: { task: { status: 'done', ask: { answer: { verdict: 'answered', choice: 1, text: '"Apache-2.0"' } } } },
    })
    expect((await web().send('GET', '/inbox')).body).toMatchObject({ count: 0, items: [] })
    expect(await web().send('POST', '/inbox/task-1/answer', { text: 'MIT' }, paired)).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/is done/) },
    })
  })

  it('refuses bad input whole: an unknown field, an over-long answer, a choice out of range, allow on a question; unknown tasks and methods', async () => {
    const paired = await web().pairedHeaders()
    expect((await web().send('POST', '/inbox/task-1/answer', { text: 'x', extra: 1 }, paired)).status).toBe(400)
    expect((await web().send('POST', '/inbox/task-1/answer', { text: 'x'.repeat(2001) }, paired)).body.error).toMatch(/at most 2000 characters/)
    expect((await web().send('POST', '/inbox/task-1/answer', { choice: 9 }, paired)).body.error).toMatch(/not one of question task-1's/)
    expect((await web().send('POST', '/inbox/task-1/allow', {}, paired)).body.error).toMatch(/is a question/)
    expect(web().host.ctx.botTasks.board.get('task-1')!.status).toBe('ready')
    expect((await web().send('POST', '/inbox/task-9/answer', { text: 'x' }, paired)).status).toBe(404)
    expect((await web().send('GET', '/inbox/task-1/answer')).status).toBe(405)
  })
})
