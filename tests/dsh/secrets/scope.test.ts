// Whose shell gets a secret beyond the own chat, and who may change secrets: a Bot's group
// Session gets its secrets (another member's does not), and a second DSH process on the same home
// (a follower) masks with the writer's values as soon as they are saved but refuses to change them.
import { describe, expect, it } from 'vitest'
import { lastToolResults, type Rule } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { settle } from '../rooms/helpers.ts'
import { bash, SHOW } from './helpers.ts'

const track = disposedAfterEach()
const user = { kind: 'user' } as const
const VALUE = 'scope-case-value-0123456789'

describe('scope beyond the own chat', () => {
  it("a Bot's group Session gets the secrets scoped to that Bot; another member's group Session does not", async () => {
    // Each member runs the command on its turn in the round, then answers.
    const member: Rule = (req) => (lastToolResults(req).length ? { text: 'done' } : bash(SHOW))
    const host = track(
      await startTeamHost(
        { mock: { fallback: { text: 'ok' } }, ada: { fallback: member }, bob: { fallback: member } },
        { shell: true, config: { rooms: { limits: { turnTimeoutMs: 10_000 } } } },
      ),
    )
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
    await host.ctx.botSecrets.set('GH_TOKEN', { value: VALUE, scope: [ada.id] })
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada', mode: 'everyone' })
    await host.ctx.botRooms.post(user, 'G', 'please run it, both of you')
    await settle(host, 'G')
    const group = host.ctx.botRooms.group('G')!
    // What each member's group Session saw of its bash call (the model's next request).
    const sawInGroup = (id: string) =>
      host.adapter.model
        .loopRequests()
        .filter((r) => r.sessionId === group.memberSessions[id])
        .flatMap((r) => lastToolResults(r).map((t) => t.text))
        .at(-1)
    expect(sawInGroup(ada.id)).toBe(`len=${VALUE.length} [[secret:GH_TOKEN]]\n`)
    expect(sawInGroup(bob.id)).toBe('len=0 [unset]\n')
  })
})

describe('a follower process on the same home', () => {
  it('masks with the values the writer saves, and refuses to change secrets', async () => {
    const writer = track(await startTeamHost({ fallback: { text: 'ok' } }))
    const follower = track(await startTeamHost({ fallback: { text: 'ok' } }, { home: writer.home, writer: 'never' }))
    expect(follower.ctx.botStore.mode).not.toBe('writer')
    expect(follower.ctx.botSecrets.mask(`x ${VALUE}`)).toBe(`x ${VALUE}`)
    await writer.ctx.botSecrets.set('GH_TOKEN', { value: VALUE, scope: 'all' })
    expect(follower.ctx.botSecrets.mask(`x ${VALUE}`)).toBe('x [secret:GH_TOKEN]')
    await expect(follower.ctx.botSecrets.set('OTHER', { value: VALUE, scope: 'all' })).rejects.toThrow(
      /only be changed in the DSH process that writes the team/,
    )
  })
})
