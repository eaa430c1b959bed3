// The groups API on a real DSH web server, in-process, acting as the user: the rooms service
// validates and decides; making a Bot a group's admin needs a paired browser; bad input gets the
// service's message (field-prefixed, as the Group dialog shows it) and changes nothing.
import { beforeEach, describe, expect, it } from 'vitest'
import { fieldErrors } from '../../../src/client/field-errors.ts'
import { webTeamHostPerTest } from '../../support/web-host.ts'

const web = webTeamHostPerTest()
let ids: Record<string, string>
beforeEach(async () => {
  ids = {}
  for (const name of ['Ada', 'Bob', 'Cy']) ids[name] = (await web().send('POST', '/bots', { name })).body.bot.id
})

const pair = () => web().pairedHeaders()
const names = (g: { members: { name: string }[] }) => g.members.map((m) => m.name)

describe('the groups API (acting as the user)', () => {
  it('creates a group with its room, reorders its members, sets admin, mode and notice, and deletes it', async () => {
    const created = await web().send('POST', '/groups', { name: 'Review', members: ['Ada', 'Bob'] })
    expect(created).toMatchObject({ status: 201, body: { group: { name: 'Review', admin: null, mode: 'admin', notice: '' } } })
    expect(names(created.body.group)).toEqual(['Ada', 'Bob'])
    const id = created.body.group.id
    const room = created.body.group.roomSessionId
    expect(web().host.ctx.botStore.state.groups[id]!.roomSessionId).toBe(room) // its room Session exists
    expect((await web().send('GET', '/groups')).body).toMatchObject({
      groups: [{ name: 'Review' }],
      limits: { nameMax: 60, noticeMax: 2000, membersMin: 2, membersMax: 12 },
    })

    const reordered = await web().send('PATCH', `/groups/${id}`, { members: ['Cy', 'Bob', 'Ada'] })
    expect(reordered.status).toBe(200)
    expect(names(reordered.body.group)).toEqual(['Cy', 'Bob', 'Ada'])
    expect(web().host.ctx.botStore.state.groups[id]!.members).toEqual([ids.Cy, ids.Bob, ids.Ada])

    const paired = await pair()
    const changed = await web().send('PATCH', '/groups/review', { admin: 'Bob', mode: 'everyone', notice: 'Be brief.' }, paired)
    expect(changed).toMatchObject({ status: 200, body: { group: { admin: { id: ids.Bob, name: 'Bob' }, mode: 'everyone', notice: 'Be brief.' } } })
    expect(await web().send('GET', `/groups/${id}`)).toMatchObject({
      status: 200,
      body: { group: { name: 'Review', admin: { name: 'Bob' }, notice: 'Be brief.' } },
    })

    expect(await web().send('DELETE', '/groups/Review', { reason: 'review finished' })).toMatchObject({ status: 200, body: { group: { id } } })
    expect(web().host.ctx.botStore.state.groups[id]!.deleted).toMatchObject({ by: 'user' })
    expect((await web().send('GET', '/groups')).body.groups).toEqual([])
    expect(await web().send('GET', `/groups/${id}`)).toMatchObject({ status: 404 })
  })

  it('needs a paired browser to make a Bot admin, and only the fence for every other change', async () => {
    const revision = web().host.ctx.botStore.state.revision
    for (const [method, path, body] of [['POST', '/groups', { name: 'Ops', members: ['Ada', 'Bob'], admin: 'Ada' }]] as const) {
      const r = await web().send(method, path, body)
      expect({ path, status: r.status }).toEqual({ path, status: 403 })
      expect(r.body.error).toMatch(/paired/)
    }
    expect(web().host.ctx.botStore.state.revision).toBe(revision)
    expect(web().host.ctx.botRooms.groups()).toEqual([])

    const paired = await pair()
    const id = (await web().send('POST', '/groups', { name: 'Ops', members: ['Ada', 'Bob'], admin: 'Ada' }, paired)).body.group.id
    const before = web().host.ctx.botStore.state.revision
    // Handing the role to another Bot, however its id is written (the service trims it), needs
    // pairing; a name nobody resolves is bad input, refused first (the body is validated before
    // the service decides, inside its save, whether the change raises anyone).
    for (const [admin, status] of [
      [ids.Bob, 403],
      [` ${ids.Bob} `, 403],
      ['Nobody', 400],
    ] as const) {
      const handOver = await web().send('PATCH', `/groups/${id}`, { admin })
      expect({ admin, status: handOver.status }).toEqual({ admin, status })
    }
    expect(web().host.ctx.botStore.state.revision).toBe(before)
    expect(web().host.ctx.botStore.state.groups[id]!.admin).toBe(ids.Ada)
    // Naming the current admin again, or no admin, raises nothing.
    expect(await web().send('PATCH', `/groups/${id}`, { admin: 'ada', notice: 'Same admin.' })).toMatchObject({
      status: 200,
      body: { group: { admin: { name: 'Ada' }, notice: 'Same admin.' } },
    })
    expect(await web().send('PATCH', `/groups/${id}`, { admin: 'none' })).toMatchObject({ status: 200, body: { group: { admin: null } } })
  })

  it('answers bad input with the service message per field and changes nothing', async () => {
    const id = (await web().send('POST', '/groups', { name: 'Review', members: ['Ada', 'Bob'] })).body.group.id
    const revision = web().host.ctx.botStore.state.revision
    const paired = await pair()
    const cases: [string, string, unknown, number, RegExp, string?, Record<string, string>?][] = [
      ['POST', '/groups', { name: '', members: ['Ada', 'Bob'] }, 400, /name must not be empty/, 'name'],
      ['POST', '/groups', { name: 'x'.repeat(61), members: ['Ada', 'Bob'] }, 400, /at most 60/, 'name'],
      ['POST', '/groups', { name: 'REVIEW', members: ['Ada', 'Bob'] }, 400, /already exists/, 'name'],
      ['POST', '/groups', { name: 'Solo', members: ['Ada'] }, 400, /at least 2 members/, 'members'],
      ['POST', '/groups', { name: 'Ghost', members: ['Ada', 'Nobody'] }, 400, /no live Bot named or with id "Nobody"/, 'members'],
      ['POST', '/groups', { name: 'Twice', members: ['Ada', 'ada'] }, 400, /listed twice/, 'members'],
      ['POST', '/groups', { name: 'Odd', members: ['Ada', 'Bob'], admin: 'Cy' }, 400, /admin must be one of the members/, 'admin', paired],
      ['POST', '/groups', { name: 'Odd', members: ['Ada', 'Bob'], mode: 'loud' }, 400, /mode/, 'mode'],
      ['POST', '/groups', { name: 'Odd', members: ['Ada', 'Bob'], notice: 'n'.repeat(2001) }, 400, /notice must be at most 2000/, 'notice'],
      ['POST', '/groups', { name: 'Odd', members: ['Ada', 'Bob'], colour: 'red' }, 400, /colour/],
      ['POST', '/groups', '{"name": "Odd"', 400, /not valid JSON/],
      ['POST', '/groups', JSON.stringify({ name: 'Odd', members: ['Ada', 'Bob'], notice: 'n'.repeat(70 * 1024) }), 413, /larger/],
      ['PATCH', `/groups/${id}`, { members: ['Ada', 'Bob', 'Nobody'] }, 400, /no live Bot/, 'members'],
      ['PATCH', `/groups/${id}`, { name: '   ' }, 400, /name must not be empty/, 'name'],
      ['PATCH', '/groups/group-404', { notice: 'x' }, 404, /No group/],
      ['DELETE', `/groups/${id}`, {}, 400, /reason: say why/, 'reason'],
      ['DELETE', `/groups/${id}`, { reason: 'x'.repeat(501) }, 400, /reason: at most 500/, 'reason'],
      ['PUT', '/groups', { name: 'Odd' }, 405, /not allowed/],
      ['POST', `/groups/${id}`, { name: 'Odd' }, 405, /not allowed/],
      ['GET', `/groups/${id}/rooms`, undefined, 404, /no such route/],
      ['POST', '/groups', { name: 'Odd', members: ['Ada', 'Bob'] }, 415, /application\/json/, undefined, { 'content-type': 'text/plain' }],
      ...['constructor', '__proto__', 'toString', 'hasOwnProperty'].flatMap((ref): [string, string, unknown, number, RegExp][] => [
        ['PATCH', `/groups/${ref}`, { notice: 'x' }, 404, /No group/],
        ['DELETE', `/groups/${ref}`, { reason: 'x' }, 404, /No group/],
      ]),
    ]
    for (const [method, path, body, status, message, field, headers] of cases) {
      const r = await web().send(method, path, body, headers)
      expect({ method, path, status: r.status }).toEqual({ method, path, status })
      expect(r.body.error).toMatch(message)
      // The dialog shows the message next to this field (the Bot form's parser).
      if (field) expect(Object.keys(fieldErrors(r.body.error, ['name', 'members', 'admin', 'mode', 'notice', 'reason']).fields)).toEqual([field])
    }
    expect(web().host.ctx.botStore.state.revision).toBe(revision)
    expect(
      web()
        .host.ctx.botRooms.groups()
        .map((g) => [g.name, g.members]),
    ).toEqual([['Review', [ids.Ada, ids.Bob]]])
  })
})
