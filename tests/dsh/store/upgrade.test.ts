// Teams saved by earlier releases (0.1.0, schema v1; the v2 build d2907db) open in this build and are used: the file
// is migrated once, the Bots keep their Sessions, and the message 0.1.0 left pending is delivered.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { STATE_VERSION } from '../../../src/store/index.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { FakeClock } from '../operations/fake-clock.ts'
import { quiesce, team, user, userMessages } from '../delivery/helpers.ts'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
const track = disposedAfterEach()

it('opens the state.json 0.1.0 saved, migrates it, keeps every Bot and its Session, and delivers the message left pending', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-upgrade-'))
  homes.push(home)
  mkdirSync(join(home, 'bot'))
  copyFileSync(new URL('../../fixtures/state-v1-0.1.0.json', import.meta.url), join(home, 'bot', 'state.json'))
  const host = track(await team({ mock: { fallback: { text: 'ok' } } }, { home }))
  const roster = host.ctx.botRoster
  expect(host.ctx.botStore.status().mode).toBe('writer')
  expect(roster.bots().map((b) => [b.name, b.main, b.permissionPreset, b.acceptsDelegatedWork])).toEqual([
    ['Main', true, 'workspace-write', false],
    ['Ada', false, 'workspace-write', false],
    ['Bob', false, 'read-only', false],
  ])
  expect(roster.bot('bot-2')!.sessionParts.map((p) => p.sessionId)).toEqual(['session-v1-ada'])
  // the pending message of 0.1.0 reaches Bob's chat (its Session id is the one 0.1.0 recorded)
  await quiesce(host)
  const bob = await roster.agentOf('bot-3')
  expect(String(bob.id)).toBe('session-v1-bob')
  expect(userMessages(bob).map((m) => m.text)).toEqual([expect.stringContaining('Pending when saved.')])
  expect(host.ctx.botDelivery.log().map((d) => d.status)).toEqual(['delivered', 'delivered'])
  // the team is usable: a new Bot, saved in the current schema version
  await roster.create(user, { name: 'Cy' })
  await quiesce(host)
  const saved = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8'))
  expect(saved.version).toBe(STATE_VERSION)
  expect(Object.values(saved.bots).map((b: any) => b.name)).toEqual(['Main', 'Ada', 'Bob', 'Cy'])
  expect(saved.nextIds.bot).toBe(5)
})

it('opens the state.json the schema-v2 build saved, migrates it to the current version, delivers the message it left pending, and the team can be paused and given a schedule', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-upgrade-v2-'))
  homes.push(home)
  mkdirSync(join(home, 'bot'))
  copyFileSync(new URL('../../fixtures/state-v2-d2907db.json', import.meta.url), join(home, 'bot', 'state.json'))
  const host = track(await team({ mock: { fallback: { text: 'ok' } } }, { home }))
  const roster = host.ctx.botRoster
  expect(host.ctx.botStore.status().mode).toBe('writer')
  expect(roster.bots().map((b) => [b.name, b.main, b.permissionPreset, b.sessionParts.map((p) => p.sessionId)])).toEqual([
    ['Main', true, 'workspace-write', ['session-v2-main']],
    ['Ada', false, 'workspace-write', ['session-v2-ada']],
    ['Bob', false, 'read-only', ['session-v2-bob']],
  ])
  expect(host.ctx.botRooms.groups().map((g) => [g.name, g.members, g.admin, g.botRounds])).toEqual([['Desk', ['bot-2', 'bot-3'], 'bot-2', 1]])
  // the message the v2 build left pending reaches Ada's chat (the Session id it recorded)
  await quiesce(host)
  const ada = await roster.agentOf('bot-2')
  expect(String(ada.id)).toBe('session-v2-ada')
  expect(userMessages(ada).map((m) => m.text)).toEqual([expect.stringContaining('Pending when saved by the v2 build.')])
  expect(host.ctx.botDelivery.log().find((d) => d.id === 'delivery-2')?.status).toBe('delivered')
  // v3's new fields work on the upgraded team, and the file is saved as v3
  await host.ctx.botPause.pause('user')
  await host.ctx.botSchedules.create({ kind: 'user' }, { bot: 'Bob', prompt: 'check the build', every_minutes: 30 })
  await host.ctx.botPause.resume()
  await quiesce(host)
  const saved = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8'))
  expect(saved.version).toBe(STATE_VERSION)
  expect(saved.schedules.map((s: any) => [s.target, s.prompt])).toEqual([[{ kind: 'bot', botId: 'bot-3' }, 'check the build']])
  expect(saved.paused).toBeUndefined()
  expect(saved.nextIds.delivery).toBe(3)
})

it('opens the state.json the schema-v3 build (3f0144e) saved while paused: the pause, limits, caps, schedule and group hold, the working folder waits for the person and is set when confirmed; on resume the pending message reaches Bob and the missed schedule runs once', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-upgrade-v3-'))
  homes.push(home)
  mkdirSync(join(home, 'bot'))
  // The v3 build saved Ada's working folder as an absolute path; point it at a folder of this test.
  const adaWork = join(home, 'ada-work')
  mkdirSync(adaWork)
  const fixture = readFileSync(new URL('../../fixtures/state-v3-3f0144e.json', import.meta.url), 'utf8')
  writeFileSync(join(home, 'bot', 'state.json'), fixture.replaceAll('/tmp/bot-team-v3-fixture/ada-work', adaWork))
  // Opened a few hours after it was saved: the hourly schedule (next due 16:26:47Z) has a missed run.
  const clock = new FakeClock('2026-12-01T20:00:00.000Z')
  const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home, clock }))
  await host.ctx.botDelivery.ready
  const roster = host.ctx.botRoster
  expect(host.ctx.botStore.status().mode).toBe('writer')
  expect(roster.bots().map((b) => [b.name, b.main, b.permissionPreset, b.sessionParts.map((p) => p.sessionId)])).toEqual([
    ['Main', true, 'workspace-write', ['session-v3-main']],
    ['Ada', false, 'workspace-write', ['session-v3-ada']],
    ['Bob', false, 'read-only', ['session-v3-bob']],
  ])
  // Saved without its real path, the folder waits for the person's confirmation (v3 → v4).
  expect(roster.find('Ada')!.workFolder).toBeUndefined()
  expect(roster.held()).toEqual([expect.objectContaining({ kind: 'work-folder', botId: 'bot-2', folder: adaWork, why: 'upgrade' })])
  await roster.confirmHeld(user, roster.held()[0]!.id)
  expect(roster.find('Ada')!.workFolder).toBe(adaWork)
  expect(roster.find('Ada')!.workFolderReal).toBe(adaWork)
  expect(roster.held()).toEqual([])
  const desk = host.ctx.botRooms.group('Desk')!
  expect([desk.members, desk.admin, desk.notice, desk.memberSessions]).toEqual([
    ['bot-2', 'bot-3'],
    'bot-2',
    'Ship the draft.',
    { 'bot-2': 'session-v3-desk-ada', 'bot-3': 'session-v3-desk-bob' },
  ])
  expect(host.ctx.botLimits.view().limits.workBudget).toBe(30)
  expect(host.ctx.botPause.isPaused()).toBe(true)
  expect(host.ctx.botSchedules.list().map((s) => [s.target, s.prompt])).toEqual([[{ kind: 'bot', botId: 'bot-3' }, 'check the build']])
  expect(host.ctx.botUsage.settings?.caps?.team?.tokens).toBe(5_000_000)
  // Held while paused, delivered on resume to the Session the v3 build recorded.
  await quiesce(host)
  expect(host.ctx.botDelivery.log().find((d) => d.id === 'delivery-1')?.status).toBe('pending')
  await host.ctx.botPause.resume()
  await quiesce(host)
  expect(host.ctx.botDelivery.log().find((d) => d.id === 'delivery-1')?.status).toBe('delivered')
  const bob = await roster.agentOf('bot-3')
  expect(String(bob.id)).toBe('session-v3-bob')
  const texts = userMessages(bob).map((m) => m.text)
  expect(texts).toHaveLength(2)
  expect(texts).toEqual(
    expect.arrayContaining([
      expect.stringContaining('Pending when saved by the v3 build.'),
      expect.stringMatching(/^\[Schedule schedule-1[^\]]*\]\n\ncheck the build$/),
    ]),
  )
  expect(host.ctx.botSchedules.get('schedule-1')!.runs).toBe(1)
  const saved = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8'))
  expect(saved.version).toBe(STATE_VERSION)
  expect(saved.paused).toBeUndefined()
})

it('opens the state.json the schema-v3 build (3f0144e) saved, migrates it to the current version, and the message it left pending gets exactly one reply, recorded on the message', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-upgrade-v3-replies-'))
  homes.push(home)
  mkdirSync(join(home, 'bot'))
  const adaWork = join(home, 'ada-work')
  mkdirSync(adaWork)
  const fixture = readFileSync(new URL('../../fixtures/state-v3-3f0144e.json', import.meta.url), 'utf8')
  writeFileSync(join(home, 'bot', 'state.json'), fixture.replaceAll('/tmp/bot-team-v3-fixture/ada-work', adaWork))
  // Before the fixture's hourly schedule falls due, so Bob's chat holds only Ada's message.
  const clock = new FakeClock('2026-12-01T15:30:00.000Z')
  const host = track(await startTeamHost({ mock: { fallback: { text: 'Bob is on it' } } }, { home, clock }))
  expect(host.ctx.botStore.status().mode).toBe('writer')
  // The v3 team was saved paused; on resume Bob gets Ada's message (reply_to: sender) and answers.
  await host.ctx.botPause.resume()
  await quiesce(host)
  const message = host.ctx.botDelivery.delivery('delivery-1')!
  expect(message).toMatchObject({ kind: 'message', replyMode: 'sender', status: 'delivered', reply: expect.stringMatching(/^delivery-\d+$/) })
  const replies = host.ctx.botDelivery.log().filter((d) => d.kind === 'reply')
  expect(replies.map((d) => [d.id, d.from, d.to, d.replyTo])).toEqual([[message.reply, 'bot-3', 'bot-2', 'delivery-1']])
  const ada = await host.ctx.botRoster.agentOf('bot-2')
  expect(userMessages(ada).filter((m) => (m.source as { answers?: string }).answers === 'delivery-1')).toHaveLength(1)
  const saved = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8'))
  expect(saved.version).toBe(STATE_VERSION)
  expect(saved.deliveries.find((d: any) => d.id === 'delivery-1').reply).toBe(message.reply)
})

it('opens the state.json the schema-v5 build (64c4f22) saved: its pending questions move into the task ledger once (the open one waits in the inbox, the answered one is done), and the file is saved without them', async () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-upgrade-v5-'))
  homes.push(home)
  mkdirSync(join(home, 'bot'))
  copyFileSync(new URL('../../fixtures/state-v5-64c4f22.json', import.meta.url), join(home, 'bot', 'state.json'))
  const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home }))
  expect(host.ctx.botStore.status().mode).toBe('writer')
  await quiesce(host)
  await host.ctx.botTasks.settled()
  const tasks = [...host.ctx.botTasks.board.all()]
  expect(tasks.map((t) => [t.id, t.status, t.assignee, t.ask?.imported, t.ask?.botId, t.ask?.question, t.ask?.choices, t.ask?.answer?.text])).toEqual([
    ['task-1', 'ready', { kind: 'user' }, 'question-1', 'bot-2', 'Which licence should the README name?', ['MIT', 'Apache-2.0'], undefined],
    ['task-2', 'done', { kind: 'user' }, 'question-2', 'bot-3', 'Is the draft ready?', undefined, 'Yes'],
  ])
  // the open one answers into the chat the v5 build recorded for Ada
  expect(tasks[0]!.ask!.sessionId).toBe('session-v5-ada')
  expect(host.ctx.botTasks.inbox().map((t) => t.id)).toEqual(['task-1'])
  const saved = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8'))
  expect(saved.version).toBe(STATE_VERSION)
  expect(saved.pendingQuestions).toBeUndefined()
  expect(saved.ledgerImport).toBeUndefined()
  await host.dispose()
  // a second start takes nothing again
  const again = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home }))
  await quiesce(again)
  await again.ctx.botTasks.settled()
  expect(again.ctx.botTasks.board.size).toBe(2)
})
