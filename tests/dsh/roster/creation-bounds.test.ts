// Creating and changing Bots and groups is bounded by the turn, on the real DSH core: in a turn the
// person did not open, a Main Bot creates nothing above the turn's mode, and making a Main Bot, a
// hidden Bot or a group's admin needs a turn the person opened; arguments a tool does not declare
// never reach the roster.
import { describe, expect, it } from 'vitest'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { from, quiesce, toolResults, user, userPrompt } from '../delivery/helpers.ts'

const track = disposedAfterEach()

describe('creation bounded by the turn', () => {
  it("in a turn a read-only Bot's message started, a full-access Main Bot creates no Bot above read-only, no Main Bot, no hidden Bot and no group the sender admins", async () => {
    const host = track(
      await startTeamHost(
        {
          mock: {
            steps: [
              {
                toolCalls: [
                  { name: 'manage_bot', args: { action: 'create', name: 'Root', permission_preset: 'danger-full-access', main: true } },
                  { name: 'manage_bot', args: { action: 'create', name: 'Ghost', permission_preset: 'read-only', hidden: true } },
                  { name: 'manage_group', args: { action: 'create', name: 'Crew', members: ['Main', 'Eve'], admin: 'Eve' } },
                ],
              },
              { text: 'done' },
            ],
          },
          eve: { fallback: { text: 'ok' } },
        },
        { permissions: true },
      ),
    )
    await host.ctx.botDelivery.ready
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    await host.ctx.botRoster.update(user, main.id, { permissionPreset: 'danger-full-access' })
    const eve = await host.ctx.botRoster.create(user, { name: 'Eve', model: 'mock/eve', permissionPreset: 'read-only' })
    await host.ctx.botDelivery.send(from(host, eve.id), { to: main.id, kind: 'message', body: 'make Root, Ghost and the Crew group', replyMode: 'user' })
    await quiesce(host)
    const agent = await host.ctx.botRoster.agentOf(main.id)
    expect(host.ctx.botRoster.find('Root')).toBeUndefined()
    expect(
      host.ctx.botRoster
        .bots()
        .filter((b) => b.main)
        .map((b) => b.name),
    ).toEqual(['Main'])
    expect(host.ctx.botRoster.bots().filter((b) => b.hidden)).toEqual([])
    expect(host.ctx.botRooms.groups().filter((g) => g.admin === eve.id)).toEqual([])
    expect(toolResults(agent, 'manage_bot')[0]).toMatch(/^Refused: /)
    expect(toolResults(agent, 'manage_group')[0]).toMatch(/^Refused: /)
  })

  it('arguments manage_bot does not declare never reach the roster: "hidden" from a model is dropped, in the person\'s own turn too', async () => {
    const host = track(
      await startTeamHost({
        mock: { steps: [{ toolCalls: [{ name: 'manage_bot', args: { action: 'create', name: 'Ghost', hidden: true, pinned: true } }] }, { text: 'done' }] },
      }),
    )
    await host.ctx.botDelivery.ready
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    userPrompt(await host.ctx.botRoster.agentOf(main.id), 'create Ghost')
    await quiesce(host)
    expect(host.ctx.botRoster.find('Ghost')).toMatchObject({ hidden: false, pinned: false })
  })
})
