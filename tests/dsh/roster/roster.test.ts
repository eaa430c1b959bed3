// botRoster on the real DSH core, in-process, with scripted models per Bot.
import { offerFor } from '../../../src/core/offer.ts'
import { SessionId } from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { ScriptedAdapter } from '../../../scripts/scripted-model/adapter.ts'
import { lastToolResults } from '../../../scripts/scripted-model/format.ts'
import type { Script, ScriptMap } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt, runTurn, startTeamHost, type TeamHostOptions } from '../../support/dsh-host.ts'
import { dshToolNames, teamToolNames, teamToolsIn } from '../../support/team-tools.ts'

const track = disposedAfterEach()

const team = async (script: Script | ScriptMap, opts: TeamHostOptions = {}) => track(await startTeamHost(script, opts))
const user = { kind: 'user' } as const

describe('botRoster (in-process DSH)', () => {
  it('creates the Main Bot once, even across a restart', async () => {
    const first = await team({ fallback: { text: 'ok' } })
    expect(first.ctx.botRoster.bots().map((b) => b.name)).toEqual(['Main'])
    const home = first.home
    await first.ctx.fiber.dispose()
    const second = await team({ fallback: { text: 'ok' } }, { home })
    expect(second.ctx.botRoster.bots().map((b) => b.name)).toEqual(['Main'])
    expect(Object.keys(second.ctx.botStore.state.bots)).toEqual(['bot-1'])
  })

  it("gives each Bot only its own persona and its role's team tools; requests of a plain Session carry no team tools", async () => {
    const host = await team({ fallback: { text: 'ok' } })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', role: 'Reviewer', instructions: 'ADA-INSTRUCTIONS' })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', role: 'Builder', instructions: 'BOB-INSTRUCTIONS' })
    await prompt(host, await host.ctx.botRoster.agentOf(ada.id), 'hi Ada')
    await prompt(host, await host.ctx.botRoster.agentOf(bob.id), 'hi Bob')
    await runTurn(host, 'hi plain')
    const [toAda, toBob, toPlain] = host.adapter.model.loopRequests()
    expect(toAda!.system).toContain('You are Ada')
    expect(toAda!.system).toContain('ADA-INSTRUCTIONS')
    expect(toAda!.system).not.toContain('BOB-INSTRUCTIONS')
    expect(toBob!.system).toContain('BOB-INSTRUCTIONS')
    expect(toBob!.system).not.toContain('ADA-INSTRUCTIONS')
    // the team tools a non-Main Bot's own chat is offered (derived from decide); none on a plain Session
    expect(await teamToolsIn(toAda!.toolNames)).toEqual(offerFor({ main: false, groups: 'none', kind: 'own' }).tools)
    expect(offerFor({ main: false, groups: 'none', kind: 'own' }).tools.length).toBeLessThan((await teamToolNames()).length)
    expect(await teamToolsIn(toPlain!.toolNames)).toEqual([])
    expect([...toPlain!.toolNames].sort()).toEqual(await dshToolNames())
    expect(toPlain!.system).not.toMatch(/You are (Ada|Bob|Main)/)
  })

  it('refuses bad input and duplicate names with clear answers, changing nothing', async () => {
    const host = await team({ fallback: { text: 'ok' } })
    const revision = host.ctx.botStore.state.revision
    await expect(host.ctx.botRoster.create(user, { name: 'x'.repeat(41) })).rejects.toThrow(/name: .*40/)
    await expect(host.ctx.botRoster.create(user, { name: 'MAIN' })).rejects.toThrow(/already/)
    await expect(host.ctx.botRoster.create(user, { name: 'Eve', colour: 'red' })).rejects.toThrow(/colour/)
    await expect(host.ctx.botRoster.create(user, { name: 'Eve', wings: true })).rejects.toThrow(/wings/)
    expect(host.ctx.botStore.state.revision).toBe(revision)
  })

  it('manage_bot refuses to create or change a Bot to a model no DSH adapter serves, naming the models DSH lists, and changes nothing', async () => {
    const host = await team({
      mock: {
        steps: [
          { toolCalls: [{ name: 'manage_bot', args: { action: 'update', bot: 'Main', model: 'provider/model' } }] },
          { toolCalls: [{ name: 'manage_bot', args: { action: 'create', name: 'Ada', model: 'nobody/gpt-9' } }] },
          { toolCalls: [{ name: 'manage_bot', args: { action: 'update', bot: 'Main', model: 'mock/other' } }] },
          { text: 'done' },
        ],
        fallback: { text: 'ok' },
      },
      other: { fallback: { text: 'ok' } },
    })
    const main = host.ctx.botRoster.bots()[0]!
    const agent = await host.ctx.botRoster.agentOf(main.id)
    const revision = host.ctx.botStore.state.revision
    await prompt(host, agent, 'switch models')
    const results = agent.session.events.filter((e) => e.type === 'tool/result').map((e: any) => e.data.message.content[0].content[0].text as string)
    expect(results[0]).toBe(
      'Refused: Bot Main was not changed: DSH does not serve the model "provider/model". The models it serves: mock/mock, mock/other. Leave the model out for DSH\'s default.',
    )
    expect(results[1]).toMatch(
      /^Refused: The Bot was not created: DSH does not serve the model "nobody\/gpt-9"\. The models it serves: mock\/mock, mock\/other\./,
    )
    expect(results[2]).toBe(`Changed Bot Main (id ${main.id}).`)
    expect(host.ctx.botRoster.bots().map((b) => [b.name, b.model])).toEqual([['Main', 'mock/other']])
    expect(host.ctx.botStore.state.revision).toBe(revision + 1)
  })

  it("swaps a Bot's model: the next request goes to the new model, identity unchanged", async () => {
    const host = await team({ mock: { fallback: { text: 'from mock' } } })
    const second = new ScriptedAdapter({ m2: { fallback: { text: 'from m2' } } })
    host.ctx.llm.registerAdapter(['mock2'], second)
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', instructions: 'ADA' })
    const agent = await host.ctx.botRoster.agentOf(ada.id)
    await prompt(host, agent, 'one')
    await host.ctx.botRoster.update(user, 'ada', { model: 'mock2/m2' })
    await prompt(host, agent, 'two')
    expect(second.model.loopRequests()).toHaveLength(1)
    expect(second.model.loopRequests()[0]!.system).toContain('You are Ada')
    const headers = agent.session.events.filter((e) => e.type === 'request/header').map((e: any) => e.data.header.config)
    expect(headers.at(-1)).toMatchObject({ provider: 'mock2', model: 'm2' })
    expect(host.ctx.botRoster.find('Ada')).toMatchObject({ id: ada.id, name: 'Ada', instructions: 'ADA', model: 'mock2/m2' })
  })

  it('keeps Bots, Session ids and identity across a restart on the same home', async () => {
    const first = await team({ fallback: { text: 'ok' } })
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada', instructions: 'ADA' })
    const quiet = await first.ctx.botRoster.create(user, { name: 'Quiet' }) // never prompted, so never written
    const sessionId = ada.sessionParts[0]!.sessionId
    await prompt(first, await first.ctx.botRoster.agentOf(ada.id), 'before restart')
    const home = first.home
    await first.ctx.fiber.dispose()

    const second = await team({ fallback: { text: 'ok again' } }, { home })
    const again = second.ctx.botRoster.find('ada')!
    expect(again.id).toBe(ada.id)
    expect(again.sessionParts.map((p) => p.sessionId)).toEqual([sessionId])
    const agent = await second.ctx.botRoster.agentOf(ada.id)
    expect(String(agent.id)).toBe(sessionId)
    await prompt(second, agent, 'after restart')
    const req = second.adapter.model.loopRequests().at(-1)!
    expect(req.system).toContain('You are Ada')
    expect(req.toolNames).toContain('list_bots')
    expect(req.messages.some((m) => m.text.includes('before restart'))).toBe(true)
    const quietAgent = await second.ctx.botRoster.agentOf(quiet.id)
    expect(String(quietAgent.id)).toBe(quiet.sessionParts[0]!.sessionId)
  })

  it('two services resuming the same cold Bot Session at once both get its one agent: resumes are single-flight per Session', async () => {
    const first = await team({ fallback: { text: 'ok' } })
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada' })
    await prompt(first, await first.ctx.botRoster.agentOf(ada.id), 'before restart')
    const home = first.home
    await first.ctx.fiber.dispose()

    const second = await team({ fallback: { text: 'ok again' } }, { home })
    expect(second.ctx.agents.get(SessionId(ada.sessionParts[0]!.sessionId))).toBeUndefined() // cold
    const results = await Promise.allSettled([second.ctx.botRoster.agentOf(ada.id), second.ctx.botRoster.agentOf(ada.id), second.ctx.botRoster.agentOf(ada.id)])
    expect(results.map((r) => (r.status === 'fulfilled' ? 'ok' : String(r.reason)))).toEqual(['ok', 'ok', 'ok'])
    const agents = new Set(results.map((r) => (r as PromiseFulfilledResult<unknown>).value))
    expect(agents.size).toBe(1)
  })

  it('a non-Main Bot is not offered manage_bot: a call it makes anyway is an error result and creates nothing, and the roster refuses it too', async () => {
    const host = await team({
      fallback: (req) =>
        lastToolResults(req).length
          ? { text: `said: ${lastToolResults(req)[0]!.text}` }
          : { toolCalls: [{ name: 'manage_bot', args: { action: 'create', name: 'Intruder' } }] },
    })
    const bee = await host.ctx.botRoster.create(user, { name: 'Bee' })
    const agent = await host.ctx.botRoster.agentOf(bee.id)
    await prompt(host, agent, 'make a bot')
    expect(host.adapter.model.loopRequests().at(-1)!.toolNames).not.toContain('manage_bot')
    const result = agent.session.events.find((e) => e.type === 'tool/result') as any
    expect(result.data.message.content[0].isError).toBe(true)
    expect(host.ctx.botRoster.find('Intruder')).toBeUndefined()
    await expect(host.ctx.botRoster.create({ kind: 'bot', sessionId: String(agent.id) }, { name: 'Intruder' })).rejects.toThrow(
      /Only a Main Bot may create Bots/,
    )
    expect(host.ctx.botRoster.find('Intruder')).toBeUndefined()
  })

  it("delete stops the Bot's running turn, drops its queue with a record, and nothing of it runs again", async () => {
    let slowRuns = 0
    let slowStarted!: () => void
    const running = new Promise<void>((r) => {
      slowStarted = r
    })
    const host = await team({ fallback: { toolCalls: [{ name: 'slow', args: {} }] } })
    host.ctx.tools.register(
      defineTool({
        name: 'slow',
        description: 'slow',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        async execute(_args, exec) {
          slowRuns++
          slowStarted()
          await new Promise((resolve, reject) => {
            const t = setTimeout(resolve, 5000)
            exec.signal.addEventListener('abort', () => {
              clearTimeout(t)
              reject(new Error('aborted'))
            })
          })
          return 'done'
        },
      }),
    )
    const doomed = await host.ctx.botRoster.create(user, { name: 'Doomed' })
    const agent = await host.ctx.botRoster.agentOf(doomed.id)
    const { createUserMessage } = await import('@deepseek-ai/dsh-llm')
    agent.followup(createUserMessage({ content: [{ type: 'text', text: 'work' }], source: { kind: 'user' } }))
    await running
    agent.followup(createUserMessage({ content: [{ type: 'text', text: 'queued' }], source: { kind: 'user' } }))

    await host.ctx.botRoster.delete(user, 'Doomed', 'no longer needed')
    const ends = agent.session.events.filter((e) => e.type === 'turn/end') as any[]
    expect(ends.at(-1).data.reason.kind).toBe('aborted')
    expect(host.ctx.botRoster.activity().some((a) => /dropped 1 queued message/.test(a.text))).toBe(true)
    expect(host.ctx.agents.get(SessionId(doomed.sessionParts[0]!.sessionId))).toBeUndefined()
    expect(host.ctx.botStore.state.bots[doomed.id]!.deleted).toMatchObject({ by: 'user' })
    expect(host.ctx.botRoster.find('Doomed')).toBeUndefined()
    // Its Session cannot be brought back to life.
    await expect(
      host.ctx.agents.resume({ resumeSessionId: SessionId(doomed.sessionParts[0]!.sessionId), agentOptions: { provider: 'mock', model: 'mock' } }),
    ).rejects.toThrow(/deleted/)
    expect(slowRuns).toBe(1)
    // Its name is free again; its id is never reused.
    const next = await host.ctx.botRoster.create(user, { name: 'Doomed' })
    expect(next.id).not.toBe(doomed.id)
  })

  it('a follower process refuses to open a Bot Session, naming the other process, and runs it after takeover', async () => {
    const writer = await team({ fallback: { text: 'from writer' } })
    const main = writer.ctx.botRoster.bots()[0]!
    const follower = await team({ fallback: { text: 'from follower' } }, { home: writer.home })
    expect(follower.ctx.botStore.mode).toBe('follower')
    // Only the writer bootstraps: the follower sees the writer's one Main Bot and adds none.
    expect(
      follower.ctx.botRoster
        .bots()
        .filter((b) => b.main)
        .map((b) => b.id),
    ).toEqual([main.id])
    await expect(follower.ctx.botRoster.agentOf(main.id)).rejects.toThrow(/not opened here: Another DSH process \(pid \d+ on /)
    // Even a direct resume is vetoed at agent/created, with the reason recorded for the team page.
    const ada = await writer.ctx.botRoster.create(user, { name: 'Ada' })
    await prompt(writer, await writer.ctx.botRoster.agentOf(ada.id), 'hi')
    await writer.ctx.fiber.dispose() // (stands in for the writer exiting; its lock is released below…)
    const writer2 = await team({ fallback: { text: 'from writer' } }, { home: writer.home }) // …and re-taken by a new writer
    const follower2 = await team({ fallback: { text: 'from follower' } }, { home: writer.home })
    await expect(
      follower2.ctx.agents.resume({ resumeSessionId: SessionId(ada.sessionParts[0]!.sessionId), agentOptions: { provider: 'mock', model: 'mock' } }),
    ).rejects.toThrow(/another DSH process writes the team/)
    expect(follower2.ctx.botRoster.activity().at(-1)?.text).toMatch(/Bot Ada's Session is not opened in this process.*pid \d+/)

    await writer2.ctx.fiber.dispose() // the writer exits and releases the lock
    const agent = await follower2.ctx.botRoster.agentOf(ada.id)
    await prompt(follower2, agent, 'hello')
    expect(follower2.ctx.botStore.mode).toBe('writer')
    expect(follower2.adapter.model.loopRequests().at(-1)!.system).toContain('You are Ada')
  })
})
