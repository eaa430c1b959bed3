// The plugin on the real DSH core, in-process: a scripted model calls `list_bots`, the result and
// the team-rules section reach the model; disposing the plugin's fiber removes everything it added.
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { afterEach, describe, expect, it } from 'vitest'
import * as plugin from '../../../src/index.ts'
import { TEAM_RULES_TEXT } from '../../../src/roster/team-tools.ts'
import { lastToolResults } from '../../../scripts/scripted-model/format.ts'
import { runTurn, startDshHost, type DshHost } from '../../support/dsh-host.ts'
import { bot } from '../../unit/store/fixtures.ts'

let host: DshHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

const listeners = (h: DshHost) => Object.values(h.ctx.events._hooks).reduce((n, hooks) => n + hooks.length, 0)

describe('plugin entry on real DSH (in-process)', () => {
  it('serves list_bots (read from team state) to the model and puts the team section in the system prompt', async () => {
    host = await startDshHost({
      steps: [
        { toolCalls: [{ name: 'list_bots', args: {} }] },
        (req) => ({ text: `Roster: ${lastToolResults(req)[0]?.text}` }),
      ],
    })
    await host.ctx.plugin(plugin, { dir: join(host.home, 'bot'), writer: 'always' } as plugin.Config)
    await host.ctx.botStore.update((s) => {
      s.bots['bot-1'] = bot('bot-1', { name: 'Ada', role: 'Lead', main: true })
      s.bots['bot-2'] = bot('bot-2', { name: 'Gone', deleted: { at: '2025-01-01T00:00:00.000Z', by: 'bot-1' } })
    })
    const agent = await runTurn(host, 'who is on the team?')
    const roster = 'The team has 1 Bot:\n- Ada (id bot-1; Lead, Main Bot)'

    const events = agent.session.events
    const call = events.find((e) => e.type === 'tool/call')
    expect(call?.data).toMatchObject({ name: 'list_bots' })
    const result = events.find((e) => e.type === 'tool/result') as any
    expect(result?.data.message.content[0].content[0].text).toBe(roster)
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'completed' } } })

    const [first, second] = host.adapter.model.loopRequests()
    expect(first?.system).toContain(TEAM_RULES_TEXT)
    expect(first?.toolNames).toContain('list_bots')
    expect(second?.messages.some((m) => m.role === 'tool' && m.text === roster)).toBe(true)
    const finalText = events.filter((e) => e.type === 'assistant/message').at(-1)?.data as any
    expect(finalText.message.content[0].text).toBe(`Roster: ${roster}`)
  })

  it('unloads cleanly: tools, sections, services, listeners and routes disappear with its fiber', async () => {
    host = await startDshHost({ fallback: { text: 'ok' } })
    const web = await host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
    const url = `http://127.0.0.1:${host.ctx.webServer.port}/bot-team/api/status`
    const listenersBefore = listeners(host)

    const dir = join(mkdtempSync(join(tmpdir(), 'bot-team-unload-')), 'bot')
    const fiber = await host.ctx.plugin(plugin, { dir, writer: 'always' } as plugin.Config)
    expect(host.ctx.botStore.mode).toBe('writer')
    expect(existsSync(join(dir, 'state.lock'))).toBe(true)
    expect(host.ctx.tools.get('list_bots')).toBeDefined()
    expect(JSON.stringify(await host.ctx.systemPrompt.assemble())).toContain(TEAM_RULES_TEXT)
    expect(host.ctx.get('botArchive')?.status.driver).toBe('better-sqlite3')
    const live = await fetch(url)
    expect(live.status).toBe(200)
    expect(await live.json()).toMatchObject({ plugin: 'dsh-bot-team', bots: [], archive: { driver: 'better-sqlite3' } })
    // The fence holds on the real server too: a foreign Origin is refused.
    expect((await fetch(url, { headers: { origin: 'http://evil.example' } })).status).toBe(403)

    await fiber.dispose()
    expect(host.ctx.tools.get('list_bots')).toBeUndefined()
    expect(JSON.stringify(await host.ctx.systemPrompt.assemble())).not.toContain(TEAM_RULES_TEXT)
    expect(host.ctx.get('botArchive')).toBeUndefined()
    expect(host.ctx.get('botStore')).toBeUndefined()
    expect(existsSync(join(dir, 'state.lock'))).toBe(false) // the team lock is released
    expect(listeners(host)).toBe(listenersBefore)
    expect((await fetch(url)).status).toBe(404)
    await web.dispose()
  })
})
