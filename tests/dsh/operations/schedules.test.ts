// Scheduled tasks on the real DSH core, in-process, on a fake clock (the `botClock` service):
// a task fires once when due, not while its Bot is busy, catches up once after downtime, stops when
// its Bot is deleted, survives a restart, waits while the team is paused; a Bot sets one through
// its tool only when the user asked; a group task is posted to the room.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { lastToolResults, type RecordedRequest, type Reply, type ScriptMap } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { quiesce, slowTool, toolResults, user, userMessages, userPrompt } from '../delivery/helpers.ts'
import { advance, FakeClock } from './fake-clock.ts'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
const track = disposedAfterEach()
const person = { kind: 'user' } as const
const MIN = 60_000
const START = '2026-03-02T08:00:00.000Z'

/** A team host whose schedules run on `clock`. */
async function team(script: ScriptMap, clock: FakeClock, home?: string): Promise<DshHost> {
  const host = track(await startTeamHost(script, { clock, ...(home ? { home } : {}) }))
  await host.ctx.botDelivery.ready
  return host
}

const tasksIn = (agent: Parameters<typeof userMessages>[0]) => userMessages(agent).filter((m) => m.source.type === 'schedule')
const script: ScriptMap = { mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada did the task' } } }

describe('scheduled tasks (in-process DSH, fake clock)', () => {
  it("fires once when due, as a follow-up in the Bot's chat with its own work budget, and plans the next run", async () => {
    const clock = new FakeClock(START)
    const host = await team(script, clock)
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const task = await host.ctx.botSchedules.create(person, { bot: 'Ada', prompt: 'check the build', every_minutes: 30 })
    expect(task.nextDueAt).toBe('2026-03-02T08:30:00.000Z')
    const adaAgent = await host.ctx.botRoster.agentOf(ada.id)

    await advance(host, clock, 29 * MIN)
    expect(tasksIn(adaAgent)).toEqual([])
    await advance(host, clock, 1 * MIN)
    const [run] = tasksIn(adaAgent)
    expect(tasksIn(adaAgent)).toHaveLength(1)
    expect(run!.text).toBe('[Schedule schedule-1 — every 30 minutes, set by the user]\n\ncheck the build')
    expect(run!.source).toMatchObject({ type: 'schedule', scheduleId: 'schedule-1', createdBy: 'user', hop: 0, budget: 'budget:schedule-1#1' })
    expect(host.ctx.botSchedules.get('schedule-1')).toMatchObject({ runs: 1, lastRunAt: '2026-03-02T08:30:00.000Z', nextDueAt: '2026-03-02T09:00:00.000Z' })
    expect(host.ctx.botStore.state.budgets.find((b) => b.id === 'budget:schedule-1#1')).toMatchObject({ openedBy: 'schedule-1', used: 1 })
  })

  it('does not fire while its Bot is busy; runs once right after the turn ends', async () => {
    const clock = new FakeClock(START)
    const busy = (req: RecordedRequest): Reply => (lastToolResults(req).length ? { text: 'slow done' } : { toolCalls: [{ name: 'slow', args: {} }] })
    const host = await team(
      { mock: { fallback: { text: 'ok' } }, ada: { fallback: (req) => (JSON.stringify(req).includes('[Schedule ') ? { text: 'task done' } : busy(req)) } },
      clock,
    )
    const slow = slowTool(host, 'until-released')
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botSchedules.create(person, { bot: 'Ada', prompt: 'check the build', every_minutes: 10 })
    const adaAgent = await host.ctx.botRoster.agentOf(ada.id)
    userPrompt(adaAgent, 'do the slow thing')
    await slow.running()

    clock.advance(15 * MIN)
    await host.ctx.botSchedules.settled()
    expect(adaAgent.status).toBe('running')
    expect(tasksIn(adaAgent)).toEqual([])
    expect(host.ctx.botSchedules.get('schedule-1')!.runs).toBe(0)

    slow.release()
    await quiesce(host)
    await host.ctx.botSchedules.settled()
    await quiesce(host)
    expect(tasksIn(adaAgent)).toHaveLength(1)
    const firstEnd = adaAgent.session.events.findIndex((e) => e.type === 'turn/end')
    expect(firstEnd).toBeLessThan(tasksIn(adaAgent)[0]!.index)
    expect(host.ctx.botSchedules.get('schedule-1')).toMatchObject({ runs: 1, nextDueAt: '2026-03-02T08:20:00.000Z' })
  })

  it('survives a restart and catches up once after downtime, not once per missed run', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bot-team-sched-'))
    homes.push(home)
    const clock = new FakeClock(START)
    const first = await team(script, clock, home)
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await first.ctx.botSchedules.create(person, { bot: 'Ada', prompt: 'water the plants', every_minutes: 10 })
    await first.dispose()

    clock.advance(2 * 60 * MIN + 5 * MIN) // twelve runs missed while DSH was down
    const second = await team(script, clock, home)
    await second.ctx.botSchedules.settled()
    await quiesce(second)
    const adaAgent = await second.ctx.botRoster.agentOf(ada.id)
    expect(tasksIn(adaAgent)).toHaveLength(1)
    expect(second.ctx.botSchedules.get('schedule-1')).toMatchObject({ runs: 1, lastRunAt: '2026-03-02T08:10:00.000Z', nextDueAt: '2026-03-02T10:10:00.000Z' })
    await advance(second, clock, 5 * MIN)
    expect(tasksIn(adaAgent)).toHaveLength(2)
  })

  it('stops when its Bot is deleted', async () => {
    const clock = new FakeClock(START)
    const host = await team(script, clock)
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/ada' })
    await host.ctx.botSchedules.create(person, { bot: 'Ada', prompt: 'report', every_minutes: 10 })
    await host.ctx.botSchedules.create(person, { bot: 'Bob', prompt: 'report', every_minutes: 10 })
    const adaAgent = await host.ctx.botRoster.agentOf(ada.id)
    await host.ctx.botRoster.delete(user, ada.id, 'no longer needed')
    await host.ctx.botSchedules.settled()
    expect(host.ctx.botSchedules.list().map((s) => s.target)).toEqual([{ kind: 'bot', botId: bob.id }])
    await advance(host, clock, 30 * MIN)
    expect(tasksIn(adaAgent)).toEqual([])
    expect(tasksIn(await host.ctx.botRoster.agentOf(bob.id))).toHaveLength(1)
  })

  it('a new part of the Bot keeps its tasks: the next run goes to the new part', async () => {
    const clock = new FakeClock(START)
    const host = await team(script, clock)
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botSchedules.create(person, { bot: 'Ada', prompt: 'report', every_minutes: 10 })
    const oldPart = await host.ctx.botRoster.agentOf(ada.id)
    const newPartId = await host.ctx.botRoster.openOwnChat(ada.id)
    await advance(host, clock, 10 * MIN)
    const newPart = await host.ctx.botRoster.agentOf(ada.id)
    expect(String(newPart.id)).toBe(newPartId)
    expect(tasksIn(oldPart)).toEqual([])
    expect(tasksIn(newPart)).toHaveLength(1)
  })

  it('is held while the team is paused and runs once on resume', async () => {
    const clock = new FakeClock(START)
    const host = await team(script, clock)
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botSchedules.create(person, { bot: 'Ada', prompt: 'check the build', every_minutes: 10 })
    await host.ctx.botPause.pause('user')
    await advance(host, clock, 45 * MIN)
    const adaAgent = await host.ctx.botRoster.agentOf(ada.id)
    expect(tasksIn(adaAgent)).toEqual([])
    expect(host.ctx.botSchedules.get('schedule-1')!.runs).toBe(0)
    await host.ctx.botPause.resume()
    await host.ctx.botSchedules.settled()
    await quiesce(host)
    expect(tasksIn(adaAgent)).toHaveLength(1)
    expect(host.ctx.botSchedules.get('schedule-1')).toMatchObject({ runs: 1, nextDueAt: '2026-03-02T08:50:00.000Z' })
  })

  it('a Bot adds a schedule with add_schedule in a turn the user opened, at its own authority; refused in a turn another Bot started', async () => {
    const clock = new FakeClock(START)
    const schedule = (req: RecordedRequest): Reply =>
      lastToolResults(req).length
        ? { text: 'done' }
        : { toolCalls: [{ name: 'add_schedule', args: { prompt: 'send the weekly summary', time: '09:00', days: 'mon', time_zone: 'Europe/Berlin' } }] }
    const host = await team(
      {
        mock: { fallback: schedule },
        ada: {
          fallback: (req) =>
            lastToolResults(req).length
              ? { text: 'asked' }
              : { toolCalls: [{ name: 'message_bot', args: { to: 'Main', message: 'please schedule', reply_to: 'user' } }] },
        },
      },
      clock,
    )
    const main = await host.ctx.botRoster.agentOf('bot-1')
    userPrompt(main, 'remind me every Monday at 9')
    await quiesce(host)
    expect(toolResults(main, 'add_schedule')[0]).toBe(
      'Scheduled schedule-1 for Main: weekly on mon at 09:00 (Europe/Berlin); first due 2026-03-09T08:00:00.000Z.',
    )
    expect(host.ctx.botSchedules.get('schedule-1')).toMatchObject({ createdBy: 'bot-1', mode: 'workspace-write', target: { kind: 'bot', botId: 'bot-1' } })

    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    userPrompt(await host.ctx.botRoster.agentOf(ada.id), 'ask Main to schedule something')
    await quiesce(host)
    expect(toolResults(main, 'add_schedule')[1]).toMatch(/^Refused: Schedules are added or removed only when the user asks/)
    expect(host.ctx.botSchedules.list()).toHaveLength(1)
    // The refusal is in the diagnostics log.
    const log = (await host.ctx.botDiagnostics.read())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(log.filter((l) => l.kind === 'refusal').map((l) => l.message)).toEqual([
      expect.stringMatching(/^tool: Schedules are added or removed only when the user asks/),
    ])
  })

  it("a group task is posted to the group's room when due, and stops when the group is deleted", async () => {
    const clock = new FakeClock(START)
    const host = await team(script, clock)
    await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const group = await host.ctx.botRooms.createGroup(user, { name: 'Crew', members: ['Main', 'Ada'] })
    await host.ctx.botSchedules.create(person, { group: 'Crew', prompt: 'stand-up: what is blocked?', daily: { time: '09:00', time_zone: 'UTC' } })
    await advance(host, clock, 60 * MIN)
    const posts = host.ctx.botRooms.rounds(group.id)
    expect(posts).toHaveLength(1)
    expect(posts[0]!.startedBy).toBe('user')
    expect(host.ctx.botSchedules.get('schedule-1')).toMatchObject({ runs: 1, nextDueAt: '2026-03-03T09:00:00.000Z' })

    // Deleting the group stops its task.
    await host.ctx.botRooms.deleteGroup(user, 'Crew', 'done')
    await host.ctx.botSchedules.settled()
    expect(host.ctx.botSchedules.list()).toEqual([])
  })
})
