// The services start in the order Cordis gives them (each once what its `inject` names is up), on
// the real DSH core, in-process: a Bot Session that was live before any of them started ends up
// wired exactly like one opened afterwards — every service's tools and prompt sections, and the
// unattended-turn guard — and two boots of the same home send the same Bot a byte-identical first
// request (system prompt, tools, messages) after the same prompt, so the order of registrations
// does not depend on timing. A service that fails to start is contained: `apply` resolves, what
// needs it waits (reported once), and the rest runs.
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentHandle } from '@deepseek-ai/dsh-agent'
import { SessionId } from '@deepseek-ai/dsh-session'
import { Service } from '@deepseek-ai/cordis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { lastToolResults, lastUserText, userTextsSinceLastAssistant, type ScriptMap } from '../../../scripts/scripted-model/format.ts'
import * as botTeam from '../../../src/index.ts'
import { BotPause } from '../../../src/operations/pause.ts'
import { disposedAfterEach, prompt, registerApprovalTool, startDshHost, startTeamHost } from '../../support/dsh-host.ts'
import { from, quiesce, toolResults, user } from '../delivery/helpers.ts'

const track = disposedAfterEach()

/** Ada answers the person; a Bot's message makes her call a tool that asks for approval. */
const SCRIPT: ScriptMap = {
  mock: { fallback: { text: 'ok' } },
  ada: {
    fallback: (req) =>
      lastToolResults(req).length
        ? { text: 'done' }
        : userTextsSinceLastAssistant(req).join('\n').includes('[Message from')
          ? { toolCalls: [{ name: 'needs_approval', args: {} }] }
          : { text: 'hello to you' },
  },
}

/** A team (the Main Bot, and Ada with a chat on disk) saved aside, and the home every boot below restores it into. */
const saved = (async () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-team-order-'))
  const host = await startTeamHost(SCRIPT, { home, permissions: true })
  const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
  await prompt(host, await host.ctx.botRoster.agentOf(ada.id), 'set up')
  await host.dispose()
  const copy = mkdtempSync(join(tmpdir(), 'bot-team-order-saved-'))
  cpSync(home, copy, { recursive: true })
  return { home, copy, adaId: ada.id, adaSession: ada.sessionParts[0]!.sessionId }
})()
afterAll(async () => {
  const { home, copy } = await saved
  for (const dir of [home, copy]) rmSync(dir, { recursive: true, force: true })
})

/**
 * Boot DSH on the saved team (same folder, same bytes), the plugin last; with `agentFirst`, Ada's
 * Session is resumed by DSH before the plugin — and so before every one of its services — starts.
 */
async function boot(opts: { agentFirst?: boolean } = {}) {
  const { home, copy, adaId, adaSession } = await saved
  rmSync(home, { recursive: true, force: true })
  cpSync(copy, home, { recursive: true })
  const host = track(await startDshHost(SCRIPT, { home, permissions: true }))
  registerApprovalTool(host)
  let early: AgentHandle | undefined
  if (opts.agentFirst) early = await host.ctx.agents.resume({ resumeSessionId: SessionId(adaSession), agentOptions: { provider: 'mock', model: 'ada' } })
  await host.ctx.plugin(botTeam, { dir: join(home, 'bot'), writer: 'always', defaultModel: 'mock/mock' } as botTeam.Config)
  const agent = await host.ctx.botRoster.agentOf(adaId)
  if (early) expect(agent).toBe(early.agent) // the roster adopted the live agent, it did not open another
  /** Stop this boot (the next one restores the same folder). */
  const stop = async () => {
    await early?.dispose()
    await host.dispose()
  }
  return { host, agent, stop }
}

/** Ada's first model request after the person's "hello": its system prompt, tools (with their schemas) and messages. */
async function firstRequest(opts: { agentFirst?: boolean } = {}): Promise<string> {
  const { host, agent, stop } = await boot(opts)
  await prompt(host, agent, 'hello')
  const request = host.adapter.model.loopRequests().find((r) => r.model === 'ada' && lastUserText(r) === 'hello')!
  await stop()
  return JSON.stringify({ system: request.system, tools: request.tools, messages: request.messages })
}

describe('services started in the order Cordis gives them', () => {
  it("a Bot Session that was live before the services started gets every service's tools and sections, and the unattended guard", async () => {
    const opened = await firstRequest()
    const early = await firstRequest({ agentFirst: true })
    expect(JSON.parse(early).tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['list_bots', 'message_bot', 'add_schedule', 'remember', 'recall', 'read_own_chat', 'request_secret']),
    )
    expect(early).toBe(opened)

    // A turn another Bot started has nobody at the screen: the guard answers the approval request.
    const { host, agent, stop } = await boot({ agentFirst: true })
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    await host.ctx.botDelivery.send(from(host, main.id), { to: 'Ada', kind: 'message', body: 'please do it', replyMode: 'user' })
    await quiesce(host)
    expect(toolResults(agent, 'needs_approval')).toEqual([
      expect.stringMatching(/^Not run yet: this turn was not opened by the user, so the call waits for the user's approval as task-1/),
    ])
    expect(host.ctx.botRoster.activity().at(-1)!.text).toMatch(/denied an approval request of needs_approval in Ada's turn started by Bot Main/)
    await stop()
  })

  it('two boots of the same home send the same Bot a byte-identical first request after the same prompt', async () => {
    const first = await firstRequest()
    const second = await firstRequest()
    expect(first.length).toBeGreaterThan(1_000)
    expect(second).toBe(first)
  })

  it('a service that fails to start is contained: apply resolves, what needs it waits and is reported, the rest runs', async () => {
    const failing = vi
      .spyOn(BotPause.prototype as unknown as Record<symbol, () => Promise<void>>, Service.init)
      .mockRejectedValue(new Error('broken on purpose'))
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      const host = track(await startDshHost(SCRIPT))
      await host.ctx.plugin(botTeam, { dir: join(host.home, 'bot'), writer: 'always', defaultModel: 'mock/mock' } as botTeam.Config)
      const lines = stderr.mock.calls.map(([chunk]) => String(chunk)).filter((l) => l.startsWith('dsh-bot-team:'))
      expect(lines).toEqual([
        'dsh-bot-team: the pause service failed to start; the rest of the plugin keeps working (broken on purpose)\n',
        'dsh-bot-team: not started, for want of botPause: delivery, rooms, schedules, task ledger\n',
      ])
      // What starts Bot work asks the pause first, so it waits; the rest of the team runs.
      for (const name of ['botPause', 'botDelivery', 'botRooms', 'botSchedules']) expect(host.ctx.get(name)).toBeUndefined()
      for (const name of ['botStore', 'botLimits', 'botRoster', 'botMemory', 'botContext', 'botSecrets', 'botUsage', 'botArchive'])
        expect(host.ctx.get(name)).toBeDefined()
      expect(host.ctx.botRoster.bots().map((b) => b.name)).toEqual(['Main'])
      const noted = (await host.ctx.botDiagnostics.read())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((l) => l.kind === 'start-failed')
      expect(noted).toEqual([
        expect.objectContaining({ message: 'the pause service failed to start; the rest of the plugin keeps working', error: 'Error: broken on purpose' }),
      ])
    } finally {
      failing.mockRestore()
      stderr.mockRestore()
    }
  })
})
