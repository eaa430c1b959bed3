// One name key in rooms: group lookup, members and admin in group fields, @mentions and group-name
// uniqueness all compare names by `nameKey` (NFKC + case folding), so full-width and mixed-case
// spellings name the same Bot or group everywhere.
import { describe, expect, it } from 'vitest'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { bots, say, speakers, team, user } from './helpers.ts'

const track = disposedAfterEach()

describe('names in rooms (nameKey)', () => {
  it('full-width and mixed-case names find the same Bots and groups; @ａｄａ calls Ada', async () => {
    const host = track(await team({ ada: { text: 'Ada here' }, bob: { text: 'Bob here' }, cy: { text: 'Cy here' } }))
    const ids = await bots(host, ['Ada', 'Bob', 'Cy'])
    const rooms = host.ctx.botRooms
    const g = await rooms.createGroup(user, { name: 'Dev  Team', members: ['ａｄａ', 'BOB', 'cY'], admin: 'ＢＯＢ' })
    expect(g).toMatchObject({ name: 'Dev Team', members: [ids.Ada, ids.Bob, ids.Cy], admin: ids.Bob })
    expect(rooms.group('ＤＥＶ ＴＥＡＭ')?.id).toBe(g.id)
    expect(rooms.group('dev team')?.id).toBe(g.id)
    await expect(rooms.createGroup(user, { name: 'ｄｅｖ team', members: ['Ada', 'Bob'] })).rejects.toThrow(/already exists/)
    await expect(rooms.updateGroup(user, 'ＤＥＶ team', { admin: 'ｃｙ' })).resolves.toMatchObject({ admin: ids.Cy })
    await say(host, 'Dev Team', '@ａｄａ and @BOB, please')
    expect(speakers(host, ['Ada', 'Bob', 'Cy'])).toEqual(['Ada', 'Bob'])
  })
})
