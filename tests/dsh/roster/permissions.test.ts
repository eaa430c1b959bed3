// botRoster with DSH's real permission stack in-process (shell sandbox, approval service,
// permission presets): a Bot's preset on every part, DSH's own pickers agreeing with the Bot, and
// approval requests in turns nobody is watching.
import { deliverySource } from '../../../src/core/sources.ts'
import { installModelSelection } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import { ScriptedAdapter } from '../../../scripts/scripted-model/adapter.ts'
import { lastToolResults } from '../../../scripts/scripted-model/format.ts'
import type { Script } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt, registerApprovalTool, startTeamHost } from '../../support/dsh-host.ts'

const track = disposedAfterEach()
const team = async (script: Script) => track(await startTeamHost(script, { permissions: true }))
const user = { kind: 'user' } as const
const presetOf = (events: readonly any[]) => events.filter((e) => e.type === 'permission/preset').at(-1)?.data.preset

describe('permission presets and pickers on Bot Sessions', () => {
  it("applies a Bot's preset to its chat and to every new part, and a change everywhere at once", async () => {
    const host = await team({ fallback: { text: 'ok' } })
    const reader = await host.ctx.botRoster.create(user, { name: 'Reader', permissionPreset: 'read-only' })
    const first = await host.ctx.botRoster.agentOf(reader.id)
    expect(presetOf(first.session.events)).toBe('read-only')
    expect(first.session.events.filter((e: any) => e.type === 'sandbox/mode').at(-1)?.data).toMatchObject({ mode: 'read-only' })

    const part2 = await host.ctx.botRoster.openOwnChat(reader.id)
    const second = host.ctx.agents.get(SessionId(part2))!
    expect(presetOf(second.session.events)).toBe('read-only')

    await host.ctx.botRoster.update(user, 'Reader', { permissionPreset: 'danger-full-access' })
    expect(presetOf(first.session.events)).toBe('danger-full-access')
    expect(presetOf(second.session.events)).toBe('danger-full-access')
  })

  it("a preset chosen for a Bot Session in DSH's own selector becomes the Bot's preset", async () => {
    const host = await team({ fallback: { text: 'ok' } })
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    await host.ctx.permissionPresets.set(agent.session, 'read-only') // what DSH Web's selector does
    await expect.poll(() => host.ctx.botRoster.find('Ada')!.permissionPreset, { timeout: 10_000 }).toBe('read-only')
  })

  it("a model picked for a Bot Session in DSH's own picker becomes the Bot's model (no silent disagreement)", async () => {
    const host = await team({ fallback: { text: 'from mock' } })
    const second = new ScriptedAdapter({ m2: { fallback: { text: 'from m2' } } })
    host.ctx.llm.registerAdapter(['mock2'], second)
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    // DSH Web installs this per-session selection on every agent; the picker writes `current`.
    const selection = { current: { provider: 'mock', model: 'mock' }, assembled: undefined }
    installModelSelection(agent.ctx, selection as any)
    await prompt(host, agent, 'one')
    selection.current = { provider: 'mock2', model: 'm2' }
    await prompt(host, agent, 'two')
    expect(second.model.loopRequests()).toHaveLength(1)
    expect(host.ctx.botRoster.find('Ada')!.model).toBe('mock2/m2')
    await prompt(host, agent, 'three')
    expect(second.model.loopRequests()).toHaveLength(2)
  })
})

describe('approval requests in turns nobody is watching', () => {
  async function withApprovalTool() {
    const host = await team({
      fallback: (req) =>
        lastToolResults(req).length ? { text: `result: ${lastToolResults(req)[0]!.text}` } : { toolCalls: [{ name: 'needs_approval', args: {} }] },
    })
    registerApprovalTool(host)
    const bot = await host.ctx.botRoster.create(user, { name: 'Worker' })
    return { host, agent: await host.ctx.botRoster.agentOf(bot.id) }
  }

  it('a turn started by another Bot gets an immediate, explained refusal instead of hanging, and the call waits in the inbox', async () => {
    const { host, agent } = await withApprovalTool()
    agent.followup(
      createUserMessage({
        content: [{ type: 'text', text: 'please do it' }],
        source: deliverySource({ id: 'delivery-1', from: 'bot-9', kind: 'message' }, 'Ada', { hop: 1 }),
      }),
    )
    await agent.whenIdle()
    const result = agent.session.events.find((e) => e.type === 'tool/result') as any
    expect(result.data.message.content[0].content[0].text).toMatch(
      /^Not run yet: this turn was not opened by the user, so the call waits for the user's approval as task-1 in their inbox/,
    )
    expect(host.ctx.botTasks.inbox().map((t) => t.ask?.question)).toEqual(['write outside the workspace'])
    expect(agent.session.events.filter((e: any) => e.type === 'approval/decided').at(-1)?.data).toMatchObject({ outcome: 'rejected' })
    expect(agent.session.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'completed' } } })
    expect(host.ctx.botRoster.activity().at(-1)!.text).toMatch(/denied an approval request of needs_approval .* started by Bot Ada/)
    // The Session's approval policy was not switched (no model-visible notice).
    expect(agent.session.events.filter((e: any) => e.type === 'approval/policy').map((e: any) => e.data.policy)).toEqual(['ask'])
  })

  it("a turn the user started is left to DSH's own approval channel", async () => {
    const { host, agent } = await withApprovalTool()
    await prompt(host, agent, 'please do it')
    const result = agent.session.events.find((e) => e.type === 'tool/result') as any
    // No browser is attached in-process, so DSH answers "unavailable" — the plugin did not intervene.
    expect(result.data.message.content[0].content[0].text).toBe('outcome=unavailable')
  })
})

describe("a Bot's preset in its group Sessions", () => {
  it("applies to the Bot's group Session and changes there too when the Bot's preset changes", async () => {
    const host = await team({ fallback: { text: 'ok' } })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', permissionPreset: 'read-only' })
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    const group = await host.ctx.botRooms.createGroup(user, { name: 'Crew', members: [main.id, ada.id] })
    const member = await host.ctx.botRooms.memberAgent(group.id, ada.id)
    expect(String(member.id)).not.toBe(ada.sessionParts[0]!.sessionId) // a Session of its own, not its chat
    expect(presetOf(member.session.events)).toBe('read-only')
    await host.ctx.botRoster.update(user, 'Ada', { permissionPreset: 'workspace-write' })
    expect(presetOf(member.session.events)).toBe('workspace-write')
    expect(presetOf((await host.ctx.botRoster.agentOf(ada.id)).session.events)).toBe('workspace-write')
  })
})
