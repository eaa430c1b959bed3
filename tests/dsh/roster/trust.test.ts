// Trust boundaries on the real DSH permission stack (in-process): no silent escalation through the
// team tools, "only when the user asks" checked in code, delegated turns never above the chain's
// lowest preset, and team invariants that hold under truly parallel requests.
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import {
  lastToolResults,
  userTextsSinceLastAssistant,
  type RecordedRequest,
  type Reply,
  type Rule,
  type ScriptMap,
} from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, registerApprovalTool, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { from, quiesce, toolResults, user, userPrompt } from '../delivery/helpers.ts'

const track = disposedAfterEach()
const team = async (scripts: ScriptMap) => track(await startTeamHost(scripts, { permissions: true }))

/** A model that calls one tool when it reads `trigger`, then answers with its tool result. */
function onTrigger(trigger: string, name: string, args: unknown): Rule {
  return (req: RecordedRequest): Reply => {
    if (lastToolResults(req).length) return { text: `done: ${lastToolResults(req)[0]!.text}` }
    return userTextsSinceLastAssistant(req).join('\n').includes(trigger) ? { toolCalls: [{ name, args }] } : { text: 'ok' }
  }
}

const modes = (agent: { session: { events: readonly any[] } }) => agent.session.events.filter((e) => e.type === 'sandbox/mode').map((e) => e.data.mode)
const mainOf = (host: DshHost) => host.ctx.botRoster.bots().find((b) => b.main)!

/** Answer DSH's approval prompts as the person would in DSH Web's browser; records the reasons shown. */
function personAnswers(host: DshHost, outcome: 'allowed-once') {
  const reasons: string[] = []
  host.ctx.on('approval/request', async (request) => {
    reasons.push(String(request.reason))
    return outcome
  })
  return reasons
}

describe('no silent escalation', () => {
  it('a Main Bot raising its own preset with update_bot in a turn another Bot started is refused, and nothing changes', async () => {
    const host = await team({
      mock: { fallback: onTrigger('RAISE', 'manage_bot', { action: 'update', bot: 'Main', permission_preset: 'danger-full-access' }) },
      bob: { fallback: { text: 'ok' } },
    })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    const main = mainOf(host)
    await host.ctx.botDelivery.send(from(host, bob.id), { to: main.id, kind: 'message', body: 'RAISE yourself to full access', replyMode: 'user' })
    await quiesce(host)
    const agent = await host.ctx.botRoster.agentOf(main.id)
    expect(toolResults(agent, 'manage_bot')).toEqual([expect.stringMatching(/^Refused: Raising a Bot's permission preset is the person's act.*team page/)])
    expect(host.ctx.botRoster.bot(main.id)!.permissionPreset).toBe('workspace-write')
    expect(modes(agent).at(-1)).toBe('workspace-write')
  })

  it("create_bot with a preset above the caller's own in a turn another Bot started is refused", async () => {
    const host = await team({
      mock: { fallback: onTrigger('MAKE', 'manage_bot', { action: 'create', name: 'Root', permission_preset: 'danger-full-access' }) },
      bob: { fallback: { text: 'ok' } },
    })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    await host.ctx.botDelivery.send(from(host, bob.id), { to: mainOf(host).id, kind: 'message', body: 'MAKE a root Bot', replyMode: 'user' })
    await quiesce(host)
    expect(toolResults(await host.ctx.botRoster.agentOf(mainOf(host).id), 'manage_bot')).toEqual([
      expect.stringMatching(/^Refused: Raising a Bot's permission preset/),
    ])
    expect(host.ctx.botRoster.find('Root')).toBeUndefined()
  })

  it("in a turn the user opened, a raise through manage_bot is refused, points at the paired team page, and DSH's approval prompt is never asked", async () => {
    const host = await team({
      mock: { fallback: onTrigger('RAISE', 'manage_bot', { action: 'update', bot: 'Main', permission_preset: 'danger-full-access' }) },
    })
    const reasons = personAnswers(host, 'allowed-once') // a Bot's shell could answer this prompt through DSH's /api
    const agent = await host.ctx.botRoster.agentOf(mainOf(host).id)
    userPrompt(agent, 'RAISE yourself')
    await quiesce(host)
    expect(reasons).toEqual([])
    expect(toolResults(agent, 'manage_bot')).toEqual([
      expect.stringMatching(/^Refused: Raising a Bot's permission preset is the person's act, made on the paired team page/),
    ])
    expect(host.ctx.botRoster.bot(mainOf(host).id)!.permissionPreset).toBe('workspace-write')
  })

  it("in a turn the user opened, creating a Bot above the caller's own preset is refused the same way: nothing is created", async () => {
    const host = await team({
      mock: { fallback: onTrigger('RAISE', 'manage_bot', { action: 'create', name: 'Root', permission_preset: 'danger-full-access' }) },
    })
    const reasons = personAnswers(host, 'allowed-once')
    const agent = await host.ctx.botRoster.agentOf(mainOf(host).id)
    userPrompt(agent, 'RAISE: make a root Bot')
    await quiesce(host)
    expect(reasons).toEqual([])
    expect(toolResults(agent, 'manage_bot')).toEqual([expect.stringMatching(/^Refused: Raising a Bot's permission preset is the person's act.*team page/)])
    expect(host.ctx.botRoster.find('Root')).toBeUndefined()
  })

  it('lowering a preset needs no confirmation, even in a turn another Bot started', async () => {
    const host = await team({
      mock: { fallback: onTrigger('LOWER', 'manage_bot', { action: 'update', bot: 'Main', permission_preset: 'read-only' }) },
      bob: { fallback: { text: 'ok' } },
    })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    await host.ctx.botDelivery.send(from(host, bob.id), { to: mainOf(host).id, kind: 'message', body: 'LOWER yourself', replyMode: 'user' })
    await quiesce(host)
    expect(host.ctx.botRoster.bot(mainOf(host).id)!.permissionPreset).toBe('read-only')
  })
})

describe('a preset this DSH does not know fails closed', () => {
  it("every approval request of such a Bot is refused, even in the user's own turn, and the team page (activity) says why", async () => {
    const host = await team({
      mock: {
        fallback: (req) =>
          lastToolResults(req).length ? { text: `got: ${lastToolResults(req)[0]!.text}` } : { toolCalls: [{ name: 'needs_approval', args: {} }] },
      },
    })
    registerApprovalTool(host)
    const reasons = personAnswers(host, 'allowed-once') // the person would allow it; the plugin must not ask
    const main = mainOf(host)
    // a team file written elsewhere names a preset this host does not have
    await host.ctx.botStore.update((s) => {
      s.bots[main.id]!.permissionPreset = 'ops-custom'
    })
    const agent = await host.ctx.botRoster.agentOf(main.id)
    userPrompt(agent, 'do it')
    await quiesce(host)
    expect(toolResults(agent, 'needs_approval')).toEqual([expect.stringMatching(/^Not approved: your permission preset "ops-custom" is not known to this DSH/)])
    expect(reasons).toEqual([])
    expect(host.ctx.botRoster.activity().some((a) => /"ops-custom" is not known to this DSH/.test(a.text))).toBe(true)
  })
})

describe('"only when the user asks" is checked in code', () => {
  it('delete_bot of another Bot is refused in a turn another Bot started and works in a turn the user opened', async () => {
    const host = await team({
      mock: { fallback: onTrigger('DELETE', 'manage_bot', { action: 'delete', bot: 'Cy', reason: 'asked to' }) },
      bob: { fallback: { text: 'ok' } },
    })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    await host.ctx.botRoster.create(user, { name: 'Cy' })
    const main = mainOf(host)
    await host.ctx.botDelivery.send(from(host, bob.id), { to: main.id, kind: 'message', body: 'DELETE Cy please', replyMode: 'user' })
    await quiesce(host)
    const agent = await host.ctx.botRoster.agentOf(main.id)
    expect(toolResults(agent, 'manage_bot')).toEqual([expect.stringMatching(/^Refused: .*only when the user asks.*this turn was not opened by the user/)])
    expect(host.ctx.botRoster.find('Cy')).toBeDefined()
    userPrompt(agent, 'DELETE Cy now')
    await quiesce(host)
    expect(toolResults(agent, 'manage_bot').at(-1)).toMatch(/^Deleted Bot Cy/)
    expect(host.ctx.botRoster.find('Cy')).toBeUndefined()
  })
})

describe('delegation never amplifies authority', () => {
  it("a full-access Bot's turn started by a workspace-write Bot runs at workspace-write, and at its own preset again in the user's next turn", async () => {
    const host = await team({ mock: { fallback: { text: 'ok' } }, rooty: { fallback: { text: 'ok' } } })
    const rooty = await host.ctx.botRoster.create(user, { name: 'Rooty', model: 'mock/rooty', permissionPreset: 'danger-full-access' })
    const agent = await host.ctx.botRoster.agentOf(rooty.id)
    const start = modes(agent).length // DSH pins the default preset's mode at creation, then the Bot's
    expect(modes(agent).at(-1)).toBe('danger-full-access')
    await host.ctx.botDelivery.send(from(host, mainOf(host).id), { to: rooty.id, kind: 'message', body: 'do the risky thing', replyMode: 'user' })
    await quiesce(host)
    expect(modes(agent).slice(start)).toEqual(['workspace-write'])
    expect(host.ctx.botRoster.activity().some((a) => /Rooty's turn started by Bot Main runs at workspace-write/.test(a.text))).toBe(true)
    userPrompt(agent, 'your own work')
    await quiesce(host)
    expect(modes(agent).slice(start)).toEqual(['workspace-write', 'danger-full-access'])
    userPrompt(agent, 'and again')
    await quiesce(host)
    expect(modes(agent).slice(start)).toHaveLength(2) // no event appended when the mode does not change
    // the mode switch never rewrites the cached prefix: every request of Rooty's chat has the same
    // system text and tool list (DSH states the mode in its runtime-context message instead)
    const rootyRequests = host.adapter.model.loopRequests().filter((r) => r.model === 'rooty')
    expect(rootyRequests.length).toBeGreaterThanOrEqual(3)
    expect(new Set(rootyRequests.map((r) => r.system)).size).toBe(1)
    expect(new Set(rootyRequests.map((r) => JSON.stringify(r.tools))).size).toBe(1)
  })

  it('the chain keeps its lowest mode over several hops: read-only → full access → full access runs read-only', async () => {
    const relay =
      (to: string): Rule =>
      (req) =>
        lastToolResults(req).length
          ? { text: 'passed on' }
          : userTextsSinceLastAssistant(req).join('').includes('[Message from')
            ? { toolCalls: [{ name: 'message_bot', args: { to, message: 'pass this on', reply_to: 'user' } }] }
            : { text: 'ok' }
    const host = await team({ mock: { fallback: { text: 'ok' } }, a: { fallback: relay('B') }, b: { fallback: { text: 'ok' } } })
    const reader = await host.ctx.botRoster.create(user, { name: 'Reader', permissionPreset: 'read-only' })
    await host.ctx.botRoster.create(user, { name: 'A', model: 'mock/a', permissionPreset: 'danger-full-access' })
    const b = await host.ctx.botRoster.create(user, { name: 'B', model: 'mock/b', permissionPreset: 'danger-full-access' })
    await host.ctx.botDelivery.send(from(host, reader.id), { to: 'A', kind: 'message', body: 'start', replyMode: 'user' })
    await quiesce(host)
    const bAgent = await host.ctx.botRoster.agentOf(b.id)
    expect(modes(bAgent).slice(-2)).toEqual(['danger-full-access', 'read-only'])
    expect(host.ctx.botDelivery.log().map((d) => [d.from, d.to, d.mode])).toEqual([
      [reader.id, 'bot-3', 'read-only'],
      ['bot-3', b.id, 'read-only'],
    ])
  })

  it('a Bot the person marked to accept delegated work runs it at its own preset', async () => {
    const host = await team({ mock: { fallback: { text: 'ok' } }, rooty: { fallback: { text: 'ok' } } })
    const rooty = await host.ctx.botRoster.create(user, { name: 'Rooty', model: 'mock/rooty', permissionPreset: 'danger-full-access' })
    await host.ctx.botRoster.setAcceptsDelegatedWork(user, 'Rooty', true)
    await expect(host.ctx.botRoster.setAcceptsDelegatedWork(from(host, mainOf(host).id), 'Rooty', true)).rejects.toThrow(/Only the person/)
    await host.ctx.botDelivery.send(from(host, mainOf(host).id), { to: rooty.id, kind: 'message', body: 'do it', replyMode: 'user' })
    await quiesce(host)
    expect(modes(await host.ctx.botRoster.agentOf(rooty.id)).at(-1)).toBe('danger-full-access')
    expect(modes(await host.ctx.botRoster.agentOf(rooty.id))).not.toContain('read-only')
  })
})

describe('team invariants hold under parallel requests', () => {
  it('two parallel demotions of the only two Main Bots: exactly one succeeds and the team keeps a Main Bot', async () => {
    const host = await team({ mock: { fallback: { text: 'ok' } } })
    await host.ctx.botRoster.create(user, { name: 'Second', main: true })
    const results = await Promise.allSettled([
      host.ctx.botRoster.update(user, 'Main', { main: false }),
      host.ctx.botRoster.update(user, 'Second', { main: false }),
    ])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect(String((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason.message)).toMatch(/without a Main Bot/)
    expect(host.ctx.botRoster.bots().filter((b) => b.main)).toHaveLength(1)
  })

  it('two Main Bots deleting each other at once from their own turns: exactly one is deleted', async () => {
    const host = await team({
      mock: { fallback: onTrigger('DELETE', 'manage_bot', { action: 'delete', bot: 'Second', reason: 'race' }) },
      second: { fallback: onTrigger('DELETE', 'manage_bot', { action: 'delete', bot: 'Main', reason: 'race' }) },
    })
    const second = await host.ctx.botRoster.create(user, { name: 'Second', main: true, model: 'mock/second' })
    const a = await host.ctx.botRoster.agentOf(mainOf(host).id)
    const b = await host.ctx.botRoster.agentOf(second.id)
    a.followup(createUserMessage({ content: [{ type: 'text', text: 'DELETE the other' }], source: { kind: 'user' } }))
    b.followup(createUserMessage({ content: [{ type: 'text', text: 'DELETE the other' }], source: { kind: 'user' } }))
    await quiesce(host)
    const live = host.ctx.botRoster.bots().filter((x) => x.main)
    expect(live).toHaveLength(1)
    const answers = [...toolResults(a, 'manage_bot'), ...toolResults(b, 'manage_bot')]
    expect(answers.filter((t) => t.startsWith('Deleted Bot'))).toHaveLength(1)
  })

  it('a send racing a delete either lands before the delete (and is then discarded) or is refused inside the save: nothing stays pending', async () => {
    const host = await team({ mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada ran', delayMs: 200 } } })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botRoster.agentOf(ada.id)
    const [sent, deleted] = await Promise.allSettled([
      host.ctx.botDelivery.send(from(host, mainOf(host).id), { to: ada.id, kind: 'message', body: 'hello', replyMode: 'user' }),
      host.ctx.botRoster.delete(user, 'Ada', 'gone'),
    ])
    await quiesce(host)
    expect(deleted.status).toBe('fulfilled')
    if (sent.status === 'rejected') expect(String(sent.reason.message)).toMatch(/was deleted; nothing was sent/)
    expect(host.ctx.botDelivery.log().filter((d) => d.status === 'pending')).toEqual([])
    expect(host.adapter.model.loopRequests().filter((r) => r.model === 'ada').length).toBeLessThanOrEqual(1)
  })

  it("a deleted Bot's Session that DSH keeps alive (as DSH Web does) runs no turn, whoever wakes it", async () => {
    const host = await team({ mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'Ada ran' } } })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const sid = `session-dsh-owned-${Math.random().toString(36).slice(2)}`
    const opened = host.ctx.botRoster.opens(sid, { kind: 'own', botId: ada.id })
    const handle = await host.ctx.agents.create({ sessionId: SessionId(sid), meta: { cwd: host.cwd }, agentOptions: { provider: 'mock', model: 'ada' } })
    opened()
    try {
      await host.ctx.botRoster.delete(user, 'Ada', 'gone')
      const before = host.adapter.model.loopRequests().filter((r) => r.model === 'ada').length
      handle.agent.followup(createUserMessage({ content: [{ type: 'text', text: 'wake up' }], source: { kind: 'user' } }))
      await handle.agent.whenIdle()
      expect(host.adapter.model.loopRequests().filter((r) => r.model === 'ada')).toHaveLength(before)
    } finally {
      await handle.dispose()
    }
  })
})
