// Every way a Bot's turn can start keeps the chain's authority, on the real DSH core with its real
// sandbox and shell: a DSH wake-up (a background job's notice), a handoff resume, a stop notice, a
// scheduled run and a person's prompt steered into a chain turn never run above the chain that
// caused them, nor outside its work budget.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Reply } from '../../../scripts/scripted-model/format.ts'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { disposedAfterEach, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { nextTurnEnd, quiesce, slowTool, toolResults, user, userMessages, userPrompt } from '../delivery/helpers.ts'
import { advance, FakeClock } from '../operations/fake-clock.ts'
import { readSource } from '../../../src/core/sources.ts'
import { Config } from '../../../src/config.ts'
import { tempHomes } from '../context/helpers.ts'

const track = disposedAfterEach()
const newHome = tempHomes('bot-team-origins-')

const bash = (command: string, extra: Record<string, unknown> = {}): Reply => ({
  toolCalls: [{ name: 'bash', args: { command, description: 'shell step', ...extra } }],
})
const modes = (agent: { session: { events: readonly any[] } }) => agent.session.events.filter((e) => e.type === 'sandbox/mode').map((e) => e.data.mode)

describe('a DSH wake-up keeps the chain', () => {
  it("a background job's notice wakes the Bot at the chain's lowest mode and inside the chain's spent budget: the write outside the workspace and the message to Bob are refused", async () => {
    let host!: DshHost
    const outside = () => join(host.home, 'outside')
    const sentinel = () => join(host.home, 'release-job')
    host = track(
      await startTeamHost(
        {
          eve: {
            steps: [{ toolCalls: [{ name: 'message_bot', args: { to: 'Ada', message: 'please run the job', reply_to: 'user' } }] }, { text: 'asked Ada' }],
          },
          ada: {
            steps: [
              () => bash(`echo chain > ${join(outside(), 'chain.txt')}`),
              () => bash(`while [ ! -f ${sentinel()} ]; do sleep 0.02; done; echo job-done`, { run_in_background: true }),
              { text: 'started the job' },
              () => ({
                toolCalls: [
                  { name: 'bash', args: { command: `echo wake > ${join(outside(), 'wake.txt')}`, description: 'shell step' } },
                  { name: 'message_bot', args: { to: 'Bob', message: 'more work for you', reply_to: 'user' } },
                ],
              }),
              { text: 'woke up and tried' },
            ],
          },
          bob: { fallback: { text: 'ok' } },
        },
        { shell: 'background', config: { team: { ...Config.parse({}).team, workBudget: 1 } } },
      ),
    )
    mkdirSync(outside(), { recursive: true })
    const eve = await host.ctx.botRoster.create(user, { name: 'Eve', model: 'mock/eve', permissionPreset: 'read-only' })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada', permissionPreset: 'danger-full-access' })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    const adaAgent = await host.ctx.botRoster.agentOf(ada.id)
    userPrompt(await host.ctx.botRoster.agentOf(eve.id), 'ask Ada to run the job')
    await quiesce(host)
    // the chain turn ran read-only: its write outside the workspace was refused
    expect(existsSync(join(outside(), 'chain.txt'))).toBe(false)
    expect(toolResults(adaAgent, 'bash').at(-1)).toMatch(/started background job/)

    const woke = nextTurnEnd(host, String(adaAgent.id))
    writeFileSync(sentinel(), '')
    await woke
    await quiesce(host)
    expect(toolResults(adaAgent, 'bash').some((t) => /job-done/.test(t))).toBe(false) // the notice itself is DSH's
    expect(existsSync(join(outside(), 'wake.txt'))).toBe(false)
    expect(modes(adaAgent).at(-1)).toBe('read-only')
    expect(toolResults(adaAgent, 'message_bot').at(-1)).toMatch(/work budget for this request is spent/)
    expect(host.ctx.botDelivery.log().filter((d) => d.to === bob.id)).toEqual([])
  })
})

describe('a handoff keeps the chain', () => {
  it("a chain turn cut by a context overflow resumes in the new part at the chain's lowest mode and inside its spent budget", async () => {
    let host!: DshHost
    const outside = () => join(host.home, 'outside')
    host = track(
      await startTeamHost(
        {
          eve: { steps: [{ toolCalls: [{ name: 'message_bot', args: { to: 'Ada', message: 'please review it', reply_to: 'user' } }] }, { text: 'asked Ada' }] },
          ada: {
            steps: [
              { fail: 'context-overflow' },
              () => ({
                toolCalls: [
                  { name: 'bash', args: { command: `echo resumed > ${join(outside(), 'resumed.txt')}`, description: 'shell step' } },
                  { name: 'message_bot', args: { to: 'Bob', message: 'more work for you', reply_to: 'user' } },
                ],
              }),
              { text: 'resumed in part 2' },
            ],
          },
          bob: { fallback: { text: 'ok' } },
        },
        { shell: true, config: { team: { ...Config.parse({}).team, workBudget: 1 } } },
      ),
    )
    mkdirSync(outside(), { recursive: true })
    const eve = await host.ctx.botRoster.create(user, { name: 'Eve', model: 'mock/eve', permissionPreset: 'read-only' })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada', permissionPreset: 'danger-full-access' })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    userPrompt(await host.ctx.botRoster.agentOf(eve.id), 'ask Ada to review it')
    await quiesce(host)
    await host.ctx.botContext.settled()
    await quiesce(host)
    const parts = host.ctx.botRoster.bot(ada.id)!.sessionParts
    expect(parts).toHaveLength(2)
    const second = await host.ctx.botRoster.agentOf(ada.id)
    const opening = userMessages(second)[0]!
    // the chain rides the handoff message's source, never its text
    expect(readSource(opening.source)).toMatchObject({ type: 'handoff', resume: true, hop: 1, mode: 'read-only', budget: expect.stringMatching(/^budget:/) })
    expect(opening.text).not.toMatch(/read-only|budget:/)
    expect(modes(second).at(-1)).toBe('read-only')
    expect(existsSync(join(outside(), 'resumed.txt'))).toBe(false)
    expect(toolResults(second, 'message_bot').at(-1)).toMatch(/work budget for this request is spent/)
    expect(host.ctx.botDelivery.log().filter((d) => d.to === bob.id)).toEqual([])
  })
})

describe('a stop notice keeps the chain', () => {
  it("the turn a stop notice opens draws on the stopping chain's budget: with it spent, the stopped Bot starts nothing", async () => {
    const host = track(
      await startTeamHost(
        {
          mock: {
            steps: [
              { toolCalls: [{ name: 'message_bot', args: { to: 'Ada', message: 'do the slow thing', reply_to: 'user' } }] },
              { toolCalls: [{ name: 'stop_bot', args: { to: 'Ada', reason: 'changed my mind' } }] },
              { text: 'stopped Ada' },
            ],
          },
          ada: {
            steps: [
              { toolCalls: [{ name: 'slow', args: {} }] },
              { toolCalls: [{ name: 'message_bot', args: { to: 'Bob', message: 'take this over', reply_to: 'user' } }] },
              { text: 'told Bob' },
            ],
          },
          bob: { fallback: { text: 'ok' } },
        },
        { config: { team: { ...Config.parse({}).team, workBudget: 1 } } },
      ),
    )
    await host.ctx.botDelivery.ready
    slowTool(host, 'until-released')
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    userPrompt(await host.ctx.botRoster.agentOf(main.id), 'get Ada going, then stop her')
    await quiesce(host)
    const adaAgent = await host.ctx.botRoster.agentOf(ada.id)
    const stop = host.ctx.botDelivery.log().find((d) => d.kind === 'stop')!
    expect(stop.budget).toBe(host.ctx.botDelivery.log().find((d) => d.kind === 'message' && d.to === ada.id)!.budget)
    expect(toolResults(adaAgent, 'message_bot').at(-1)).toMatch(/work budget for this request is spent/)
    expect(host.ctx.botDelivery.log().filter((d) => d.to === bob.id)).toEqual([])
  })
})

describe('a scheduled run keeps the lowest authority', () => {
  it("a task a Main Bot set for another Bot runs at the creator's preset as it is now: lowered to read-only since, the run is read-only", async () => {
    const clock = new FakeClock('2026-03-02T08:00:00.000Z')
    const host = track(
      await startTeamHost(
        {
          mock: {
            steps: [
              { toolCalls: [{ name: 'add_schedule', args: { bot: 'Ada', prompt: 'clean up the build folder', every_minutes: 30 } }] },
              { text: 'scheduled' },
            ],
          },
          ada: { fallback: { text: 'cleaned' } },
        },
        { clock, permissions: true },
      ),
    )
    await host.ctx.botDelivery.ready
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    await host.ctx.botRoster.update(user, main.id, { permissionPreset: 'danger-full-access' })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada', permissionPreset: 'danger-full-access' })
    userPrompt(await host.ctx.botRoster.agentOf(main.id), 'every half hour, have Ada clean up the build folder')
    await quiesce(host)
    expect(host.ctx.botSchedules.list()).toHaveLength(1)
    await host.ctx.botRoster.update(user, main.id, { permissionPreset: 'read-only' })
    await advance(host, clock, 30 * 60_000)
    const adaAgent = await host.ctx.botRoster.agentOf(ada.id)
    expect(userMessages(adaAgent).filter((m) => (m.source as { type?: string }).type === 'schedule')).toHaveLength(1)
    expect(modes(adaAgent).at(-1)).toBe('read-only')
  })
})

describe("a person's prompt steered into a chain turn", () => {
  it("does not make the turn the person's: a delete Bob's message asked for, in the same turn, is still refused", async () => {
    const host = track(
      await startTeamHost({
        mock: {
          steps: [
            { toolCalls: [{ name: 'slow', args: {} }] },
            { toolCalls: [{ name: 'manage_bot', args: { action: 'delete', bot: 'Cy', reason: 'Bob said so' } }] },
            { text: 'done' },
          ],
        },
        bob: { fallback: { text: 'ok' } },
      }),
    )
    await host.ctx.botDelivery.ready
    const slow = slowTool(host, 'until-released')
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    await host.ctx.botRoster.create(user, { name: 'Cy' })
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    const mainAgent = await host.ctx.botRoster.agentOf(main.id)
    await host.ctx.botDelivery.send(
      { kind: 'bot', sessionId: host.ctx.botRoster.bot(bob.id)!.sessionParts.at(-1)!.sessionId },
      { to: main.id, kind: 'message', body: 'delete Cy', replyMode: 'user' },
    )
    await slow.running()
    mainAgent.steer(createUserMessage({ content: [{ type: 'text', text: 'how is it going?' }], source: { kind: 'user' } }))
    slow.release()
    await quiesce(host)
    expect(toolResults(mainAgent, 'manage_bot')).toEqual([expect.stringMatching(/^Refused: .*only when the user asks/)])
    expect(host.ctx.botRoster.find('Cy')).toBeDefined()
  })
})

describe("the Session's last chain survives a restart", () => {
  it("after a restart, another plugin's notice wakes the Bot under the chain its log names: read-only, the spent budget refuses its message", async () => {
    const scripts = {
      eve: { steps: [{ toolCalls: [{ name: 'message_bot', args: { to: 'Ada', message: 'please look', reply_to: 'user' } }] }, { text: 'asked Ada' }] },
      ada: { steps: [{ text: 'looked' }] },
      bob: { fallback: { text: 'ok' } },
    }
    // After the restart Ada's model, woken by the notice, tries to hand work on.
    const woken = {
      ...scripts,
      ada: { steps: [{ toolCalls: [{ name: 'message_bot', args: { to: 'Bob', message: 'more work for you', reply_to: 'user' } }] }, { text: 'tried' }] },
    }
    const config = { team: { ...Config.parse({}).team, workBudget: 1 } }
    const home = newHome()
    const first = track(await startTeamHost(scripts, { permissions: true, config, home }))
    const eve = await first.ctx.botRoster.create(user, { name: 'Eve', model: 'mock/eve', permissionPreset: 'read-only' })
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada', permissionPreset: 'danger-full-access' })
    const bob = await first.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    userPrompt(await first.ctx.botRoster.agentOf(eve.id), 'ask Ada to look')
    await quiesce(first)
    await first.dispose()

    const second = track(await startTeamHost(woken, { permissions: true, config, home }))
    await second.ctx.botDelivery.ready
    const adaAgent = await second.ctx.botRoster.agentOf(ada.id)
    adaAgent.followup(createUserMessage({ content: [{ type: 'text', text: 'cron: the nightly job finished' }], source: { kind: 'plugin', plugin: 'cron' } }))
    await quiesce(second)
    expect(modes(adaAgent).at(-1)).toBe('read-only')
    expect(toolResults(adaAgent, 'message_bot').at(-1)).toMatch(/work budget for this request is spent/)
    expect(second.ctx.botDelivery.log().filter((d) => d.to === bob.id)).toEqual([])
  })
})
