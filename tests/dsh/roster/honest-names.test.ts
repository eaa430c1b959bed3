// Honest names on the real DSH core (in-process): a Bot or group name with a zero-width, format or
// bidi character, or one that looks like an existing Bot's or group's (TR39 skeleton), is refused
// with nothing changed; a name saved before that rule still works and is shown escaped in the team
// view and in the header of its messages.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { teamView } from '../../../src/web/team-view.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { from, quiesce, user, userMessages } from '../delivery/helpers.ts'

const track = disposedAfterEach()
const team = async (home?: string) => track(await startTeamHost({ fallback: { text: 'ok' } }, home ? { home } : {}))

describe('honest names', () => {
  it('refuses a Bot named like Main with a homoglyph or an invisible character, and changes nothing', async () => {
    const host = await team()
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const revision = host.ctx.botStore.state.revision
    await expect(host.ctx.botRoster.create(user, { name: 'Maіn' })).rejects.toThrow(/"Maіn" looks like Bot Main \(their letters are confusable\)/)
    await expect(host.ctx.botRoster.create(user, { name: 'Ma\u200bin' })).rejects.toThrow(/format characters or direction marks \(it has U\+200B\)/)
    await expect(host.ctx.botRoster.create(user, { name: 'Ma\u2060in' })).rejects.toThrow(/U\+2060/)
    await expect(host.ctx.botRoster.create(user, { name: 'Ma\u00adin' })).rejects.toThrow(/U\+00AD/)
    await expect(host.ctx.botRoster.update(user, ada.id, { name: 'rnain' })).rejects.toThrow(/looks like Bot Main/)
    expect(host.ctx.botStore.state.revision).toBe(revision)
    expect(host.ctx.botRoster.bots().map((b) => b.name)).toEqual(['Main', 'Ada'])
  })

  it('refuses a group name with an escape sequence or a bidi override, and one that looks like a Bot or another group', async () => {
    const host = await team()
    await host.ctx.botRoster.create(user, { name: 'Ada' })
    await host.ctx.botRoster.create(user, { name: 'Bob' })
    const members = ['Ada', 'Bob']
    await expect(host.ctx.botRooms.createGroup(user, { name: 'Desk\u001b[31m', members })).rejects.toThrow(/U\+001B/)
    await expect(host.ctx.botRooms.createGroup(user, { name: 'Desk\u202etxt', members })).rejects.toThrow(/U\+202E/)
    await expect(host.ctx.botRooms.createGroup(user, { name: 'Mаin', members })).rejects.toThrow(/looks like Bot Main/)
    await host.ctx.botRooms.createGroup(user, { name: 'Desk', members })
    await expect(host.ctx.botRooms.createGroup(user, { name: 'Dеsk', members })).rejects.toThrow(/looks like group Desk/)
    await expect(host.ctx.botRoster.create(user, { name: 'DESK' })).rejects.toThrow(/looks like group Desk/)
    expect(host.ctx.botRooms.groups().map((g) => g.name)).toEqual(['Desk'])
  })

  it('a name saved before the rule keeps working and is shown escaped: the team view, and the header of its messages', async () => {
    const first = await team()
    const eve = await first.ctx.botRoster.create(user, { name: 'Eve' })
    const home = first.home
    await first.ctx.fiber.dispose()
    const file = join(home, 'bot', 'state.json')
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"name": ?"Eve"/, '"name":"Ev\\u200be"'))
    const host = await team(home)
    expect(host.ctx.botRoster.bot(eve.id)!.name).toBe('Ev\u200be')
    const view = teamView({ state: host.ctx.botStore.state, store: host.ctx.botStore.status(), running: () => false })
    expect(view.bots.find((b) => b.id === eve.id)!.name).toBe('Ev\\u{200B}e')
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    await host.ctx.botDelivery.send(from(host, eve.id), { to: main.id, kind: 'message', body: 'hello', replyMode: 'user' })
    await quiesce(host)
    const texts = userMessages(await host.ctx.botRoster.agentOf(main.id)).map((m) => m.text)
    expect(texts).toEqual([expect.stringContaining('[Message from Bot Ev\\u{200B}e]')])
  })
})
