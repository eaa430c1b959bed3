// Tools by role on the real DSH core (in-process): every own-chat and member role is offered
// exactly the team tools `core/offer.ts` derives from decide(); the role is frozen with the part
// (a restart offers the same tools and team section; a change is told once, in a line that starts
// no turn, and applies from the next part); DSH's tools a member Session must not have are denied.
import { defineTool } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { offerFor, ROLES, type Role } from '../../../src/core/offer.ts'
import type { RecordedRequest } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { teamToolsIn } from '../../support/team-tools.ts'
import { quiesce } from '../delivery/helpers.ts'
import { say, user } from '../rooms/helpers.ts'
import { startCompactingTeamHost } from '../context-compaction/helpers.ts'

const track = disposedAfterEach()
const key = (r: Role) => `${r.main ? 'Main' : 'Bot'}/${r.groups}/${r.kind}`
const ok = { fallback: { text: 'ok' } }

/** The newest loop request of a Session. */
const lastOf = (host: DshHost, sessionId: string): RecordedRequest =>
  host.adapter.model
    .loopRequests()
    .filter((r) => r.sessionId === sessionId)
    .at(-1)!

describe('tools by role', () => {
  it('every own-chat and member role is offered exactly the team tools derived from decide()', async () => {
    const host = track(await startTeamHost({ mock: ok, '*': ok }))
    const roster = host.ctx.botRoster
    const make = (name: string, main: boolean) => roster.create(user, { name, main, model: `mock/${name.toLowerCase()}` })
    // Main Bots and Bots with every standing in groups: none, member, admin.
    for (const [name, main] of [
      ['MainAdmin', true],
      ['MainMember', true],
      ['Admin', false],
      ['Member', false],
      ['Loner', false],
    ] as const)
      await make(name, main)
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Admin', 'Member', 'MainMember', 'MainAdmin'], admin: 'Admin', mode: 'everyone' })
    await host.ctx.botRooms.createGroup(user, { name: 'H', members: ['MainAdmin', 'Member'], admin: 'MainAdmin', mode: 'everyone' })
    // The roles above take effect from each Bot's next part.
    for (const b of roster.bots()) await roster.openOwnChat(b.id)
    const seen = new Map<string, { want: readonly string[]; got: string[] }>()
    for (const b of roster.bots()) {
      const agent = await roster.agentOf(b.id)
      await prompt(host, agent, 'hello')
      const role = roster.roleOf(String(agent.id))!
      seen.set(`${b.name} ${key(role)}`, { want: offerFor(role).tools, got: await teamToolsIn(lastOf(host, String(agent.id)).toolNames) })
    }
    await say(host, 'G', 'hello everyone')
    await say(host, 'H', 'hello everyone')
    await quiesce(host)
    for (const g of host.ctx.botRooms.groups()) {
      for (const [botId, sessionId] of Object.entries(g.memberSessions)) {
        const role = roster.roleOf(sessionId)!
        seen.set(`${roster.bot(botId)!.name} in ${g.name} ${key(role)}`, {
          want: offerFor(role).tools,
          got: await teamToolsIn(lastOf(host, sessionId).toolNames),
        })
      }
    }
    for (const [who, { want, got }] of seen) expect(got, who).toEqual(want)
    const covered = new Set([...seen.keys()].map((k) => k.split(' ').at(-1)))
    expect([...covered].sort()).toEqual(
      ROLES.filter((r) => r.kind !== 'task')
        .map(key)
        .sort(),
    )
  })

  it("a member Session is not offered DSH's tools nobody could answer or follow there; the own chat keeps them", async () => {
    const host = track(await startTeamHost({ mock: ok, '*': ok }))
    host.ctx.tools.register(
      defineTool({
        name: 'ask_user_question',
        description: 'asks the person',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        async execute() {
          return 'answered'
        },
      }),
    )
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'] })
    await say(host, 'G', 'hello')
    await quiesce(host)
    const member = lastOf(host, host.ctx.botRooms.group('G')!.memberSessions[ada.id]!)
    expect(member.toolNames).not.toContain('ask_user_question')
    const own = await host.ctx.botRoster.agentOf(ada.id)
    await prompt(host, own, 'hello')
    expect(lastOf(host, String(own.id)).toolNames).toContain('ask_user_question')
  })
})

describe('the role is frozen with the part', () => {
  it('a role change is told once in a line that starts no turn; the tools stay the part’s until the next part', async () => {
    const host = track(await startTeamHost({ mock: ok, ada: ok }))
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await roster.agentOf(ada.id)
    await prompt(host, agent, 'hello')
    const before = lastOf(host, String(agent.id))
    const requests = host.adapter.model.loopRequests().length
    await roster.update(user, 'Ada', { main: true })
    await roster.update(user, 'Ada', { role: 'Lead' }) // a change that is not one of role: told nothing more
    await quiesce(host)
    expect(host.adapter.model.loopRequests().length).toBe(requests) // no turn was started
    await prompt(host, agent, 'what changed?')
    const after = lastOf(host, String(agent.id))
    expect(after.toolNames).toEqual(before.toolNames)
    expect(after.tools).toEqual(before.tools)
    const notices = after.messages.filter((m) => m.text.startsWith('Team change:'))
    expect(notices.map((m) => m.text)).toEqual(['Team change: you are now a Main Bot. Your tools follow at your next part; until then a tool may refuse.'])
    // Its next part is offered a Main Bot's tools and says so; nothing is told again.
    await roster.openOwnChat(ada.id)
    const next = await roster.agentOf(ada.id)
    await prompt(host, next, 'hello again')
    const fresh = lastOf(host, String(next.id))
    expect(await teamToolsIn(fresh.toolNames)).toEqual(offerFor({ main: true, groups: 'none', kind: 'own' }).tools)
    expect(fresh.system).toContain('You are a Main Bot.')
    expect(fresh.messages.some((m) => m.text.startsWith('Team change:'))).toBe(false)
  })

  it('a restart offers the part the same tools and team section it was frozen with, and does not tell the change again', async () => {
    const first = track(await startTeamHost({ mock: ok, ada: ok }))
    const home = first.home
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const agent = await first.ctx.botRoster.agentOf(ada.id)
    await prompt(first, agent, 'hello')
    const before = lastOf(first, String(agent.id))
    await first.ctx.botRoster.update(user, 'Ada', { main: true })
    await first.ctx.botRoster.create(user, { name: 'Bob' }) // the team grew: the section keeps its words
    await quiesce(first)
    await first.ctx.fiber.dispose() // the home stays for the second boot

    const second = track(await startTeamHost({ mock: ok, ada: ok }, { home }))
    const resumed = await second.ctx.botRoster.agentOf(ada.id)
    expect(String(resumed.id)).toBe(String(agent.id))
    await prompt(second, resumed, 'hello after the restart')
    const after = lastOf(second, String(resumed.id))
    expect(after.system).toBe(before.system)
    expect(after.tools).toEqual(before.tools)
    expect(after.messages.filter((m) => m.text.startsWith('Team change:'))).toHaveLength(1)
    expect(second.ctx.botRoster.roleOf(String(resumed.id))).toEqual({ main: false, groups: 'none', kind: 'own' })
  })

  it("a checkpoint renews the part's role: the tools and team section of the new role from the next request on", async () => {
    const work = { text: `Done. ${'I read the module, changed the parser and ran the tests again. '.repeat(40)}` }
    const host = track(await startCompactingTeamHost({ fallback: work, contextWindow: 16_000 }))
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada' })
    const agent = await roster.agentOf(ada.id)
    for (let i = 0; i < 4; i++) await prompt(host, agent, `Step ${i}: ${'keep going with the parser port '.repeat(20)}`)
    await roster.update(user, 'Ada', { main: true })
    expect(await teamToolsIn(lastOf(host, String(agent.id)).toolNames)).not.toContain('manage_bot')
    expect(await host.ctx.botCompaction.checkpoint(String(agent.id))).toEqual({ ok: true })
    await prompt(host, agent, 'what next?')
    const after = lastOf(host, String(agent.id))
    expect(await teamToolsIn(after.toolNames)).toEqual(offerFor({ main: true, groups: 'none', kind: 'own' }).tools)
    expect(after.system).toContain('You are a Main Bot.')
    expect(roster.roleOf(String(agent.id))).toEqual({ main: true, groups: 'none', kind: 'own' })
  })
})
