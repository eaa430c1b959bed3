// The plugin on the real DSH core, in-process: the first Main Bot's Session gets the team tools
// and sections (a plain Session gets none); its scripted model calls `list_bots`; disposing the
// plugin's fiber removes everything it added.
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { SessionId } from '@deepseek-ai/dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import * as plugin from '../../../src/index.ts'
import { lastToolResults } from '../../../scripts/scripted-model/format.ts'
import { prompt, runTurn, startDshHost, type DshHost } from '../../support/dsh-host.ts'
import { dshToolNames, teamToolNames, teamToolsIn } from '../../support/team-tools.ts'

let host: DshHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

const listeners = (h: DshHost) => Object.values(h.ctx.events._hooks).reduce((n, hooks) => n + hooks.length, 0)
const config = (dir: string) => ({ dir, writer: 'always', defaultModel: 'mock/mock' }) as plugin.Config

describe('plugin entry on real DSH (in-process)', () => {
  it('gives the Main Bot list_bots and its identity; a plain Session gets no team tools', async () => {
    host = await startDshHost({
      steps: [{ toolCalls: [{ name: 'list_bots', args: {} }] }, (req) => ({ text: `Roster: ${lastToolResults(req)[0]?.text}` })],
    })
    await host.ctx.plugin(plugin, config(join(host.home, 'bot')))
    const [main] = host.ctx.botRoster.bots()
    expect(main).toMatchObject({ name: 'Main', main: true })
    const agent = await host.ctx.botRoster.agentOf(main!.id)
    await prompt(host, agent, 'who is on the team?')
    const roster = `The team has 1 Bot:\n- Main (id ${main!.id}; Lead, Main Bot)`

    const events = agent.session.events
    expect(events.find((e) => e.type === 'tool/call')?.data).toMatchObject({ name: 'list_bots' })
    const result = events.find((e) => e.type === 'tool/result') as any
    expect(result?.data.message.content[0].content[0].text).toBe(roster)
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'completed' } } })

    const [first, second] = host.adapter.model.loopRequests()
    expect(first?.system).toContain("You are Main, the team's Lead")
    expect(first?.system).toContain('You are a Main Bot. The team when this part started: no other Bots.')
    expect(first?.toolNames).toEqual(expect.arrayContaining(['list_bots', 'manage_bot']))
    expect(second?.messages.some((m) => m.role === 'tool' && m.text === roster)).toBe(true)
    const final = events.filter((e) => e.type === 'assistant/message').at(-1)?.data as any
    expect(final.message.content[0].text).toBe(`Roster: ${roster}`)

    // The Main Bot is offered every team tool (roster, delivery and group tools alike) but ask_person (the person is in its chat)…
    expect(first?.toolNames).toEqual(expect.arrayContaining([...(await teamToolNames())].filter((t) => t !== 'ask_person')))
    expect(first?.toolNames).not.toContain('ask_person')
    // …a plain DSH Session exactly DSH's own tools — no team tool — and no team sections (and pays no tokens for them).
    await runTurn(host, 'hello')
    const plain = host.adapter.model.loopRequests().at(-1)!
    expect(await teamToolsIn(plain.toolNames)).toEqual([])
    expect([...plain.toolNames].sort()).toEqual(await dshToolNames())
    expect(plain.system).not.toContain('list_bots shows it now')
  })

  it('unloads cleanly: tools, sections, services, agents, listeners and routes disappear with its fiber', async () => {
    host = await startDshHost({ fallback: { text: 'ok' } })
    const web = await host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
    const url = `http://127.0.0.1:${host.ctx.webServer.port}/bot-team/api/status`
    const listenersBefore = listeners(host)

    const dir = join(mkdtempSync(join(tmpdir(), 'bot-team-unload-')), 'bot')
    const fiber = await host.ctx.plugin(plugin, config(dir))
    expect(host.ctx.botStore.mode).toBe('writer')
    expect(existsSync(join(dir, 'state.lock'))).toBe(true)
    const mainAgent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.bots()[0]!.id)
    expect(host.ctx.tools.get('list_bots', mainAgent)).toBeDefined()
    // A Bot agent that DSH owns (as DSH Web does) outlives the plugin: what the plugin put on its
    // scope must still go when the plugin unloads.
    const ownedByDsh = `session-${Math.random().toString(36).slice(2)}`
    const opened = host.ctx.botRoster.opens(ownedByDsh, { kind: 'own', botId: host.ctx.botRoster.bots()[0]!.id })
    const survivorHandle = await host.ctx.agents.create({
      sessionId: SessionId(ownedByDsh),
      meta: { cwd: host.cwd },
      agentOptions: { provider: 'mock', model: 'mock' },
    })
    opened()
    const survivor = survivorHandle.agent
    const teamTools = () =>
      host!.ctx.tools
        .schemas(survivor)
        .map((t) => t.name)
        .filter((n) => /_bots?$|_group|group_|_chat$/.test(n))
    expect(teamTools()).toEqual(expect.arrayContaining(['list_bots', 'message_bot', 'manage_group']))
    expect(host.ctx.get('botArchive')?.status.driver).toBe('better-sqlite3')
    const live = await fetch(url)
    expect(live.status).toBe(200)
    expect(await live.json()).toMatchObject({
      plugin: 'dsh-bot-team',
      bots: [{ name: 'Main', main: true }],
      store: { mode: 'writer' },
      archive: { driver: 'better-sqlite3' },
    })
    // The fence holds on the real server too: a foreign Origin is refused.
    expect((await fetch(url, { headers: { origin: 'http://evil.example' } })).status).toBe(403)

    await fiber.dispose()
    expect(host.ctx.agents.list().map((a) => String(a.id))).toEqual([ownedByDsh]) // the Bot agents it created are gone…
    expect(teamTools()).toEqual([]) // …and the one DSH owns keeps none of its tools
    expect(JSON.stringify(await host.ctx.systemPrompt.assemble({ agent: survivor } as any))).not.toContain('a long-lived Bot on a team of Bots')
    expect(host.ctx.get('botArchive')).toBeUndefined()
    expect(host.ctx.get('botStore')).toBeUndefined()
    expect(host.ctx.get('botRoster')).toBeUndefined()
    expect(existsSync(join(dir, 'state.lock'))).toBe(false) // the team lock is released
    await survivorHandle.dispose()
    expect(listeners(host)).toBe(listenersBefore)
    expect((await fetch(url)).status).toBe(404)
    await web.dispose()
  })
})
