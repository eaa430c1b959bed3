// The plugin on the real DSH core, in-process: a scripted model calls `list_bots`, the result and
// the team-rules section reach the model; disposing the plugin's fiber removes everything it added.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { afterEach, describe, expect, it } from 'vitest'
import * as plugin from '../../../src/index.ts'
import { TEAM_RULES_TEXT } from '../../../src/roster/team-tools.ts'
import { lastToolResults } from '../../../scripts/scripted-model/format.ts'
import { runTurn, startDshHost, type DshHost } from '../../support/dsh-host.ts'

let host: DshHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

const listeners = (h: DshHost) => Object.values(h.ctx.events._hooks).reduce((n, hooks) => n + hooks.length, 0)

describe('plugin entry on real DSH (in-process)', () => {
  it('serves list_bots to the model and puts the team section in the system prompt', async () => {
    host = await startDshHost({
      steps: [
        { toolCalls: [{ name: 'list_bots', args: {} }] },
        (req) => ({ text: `Roster: ${lastToolResults(req)[0]?.text}` }),
      ],
    })
    await host.ctx.plugin(plugin, { dir: join(host.home, 'bot') })
    const agent = await runTurn(host, 'who is on the team?')

    const events = agent.session.events
    const call = events.find((e) => e.type === 'tool/call')
    expect(call?.data).toMatchObject({ name: 'list_bots' })
    const result = events.find((e) => e.type === 'tool/result')
    expect(JSON.stringify(result?.data)).toContain('The team has no Bots yet.')
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'completed' } } })

    const [first, second] = host.adapter.model.loopRequests()
    expect(first?.system).toContain(TEAM_RULES_TEXT)
    expect(first?.toolNames).toContain('list_bots')
    expect(second?.messages.some((m) => m.role === 'tool' && m.text.includes('The team has no Bots yet.'))).toBe(true)
    const finalText = JSON.stringify(events.filter((e) => e.type === 'assistant/message').at(-1)?.data)
    expect(finalText).toContain('Roster: The team has no Bots yet.')
  })

  it('unloads cleanly: tools, sections, services, listeners and routes disappear with its fiber', async () => {
    host = await startDshHost({ fallback: { text: 'ok' } })
    const web = await host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
    const url = `http://127.0.0.1:${host.ctx.webServer.port}/bot-team/api/status`
    const listenersBefore = listeners(host)

    const fiber = await host.ctx.plugin(plugin, { dir: join(mkdtempSync(join(tmpdir(), 'bot-team-unload-')), 'bot') })
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
    expect(listeners(host)).toBe(listenersBefore)
    expect((await fetch(url)).status).toBe(404)
    await web.dispose()
  })
})
