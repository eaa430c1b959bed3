// The plugin's HTTP API for the user (team page) on a real DSH web server, in-process: every write
// goes through the fence and the roster; bad input gets a clear 4xx and changes nothing.
import { describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES } from '../../../src/web/routes.ts'
import { webTeamHostPerTest, type WebTeamHost } from '../../support/web-host.ts'

const current = webTeamHostPerTest()
const send: WebTeamHost['send'] = (method, path, body, headers) => current().send(method, path, body, headers)

describe('the bots API (acting as the user)', () => {
  it('creates, lists, changes and deletes Bots', async () => {
    const created = await send('POST', '/bots', { name: 'Ada', role: 'Reviewer', model: 'mock/mock' })
    expect(created).toMatchObject({ status: 201, body: { bot: { name: 'Ada', role: 'Reviewer', main: false } } })
    const id = created.body.bot.id
    expect(current().host.ctx.botRoster.bot(id)!.sessionParts).toHaveLength(1) // its own chat exists
    expect((await send('GET', '/bots')).body.bots.map((b: any) => b.name)).toEqual(['Main', 'Ada'])
    expect(await send('PATCH', `/bots/${id}`, { role: 'Lead reviewer' })).toMatchObject({ status: 200, body: { bot: { role: 'Lead reviewer' } } })
    expect(await send('DELETE', `/bots/${id}`, { reason: 'done' })).toMatchObject({ status: 200, body: { bot: { id } } })
    expect((await send('GET', '/bots')).body.bots.map((b: any) => b.name)).toEqual(['Main'])
  })

  it('answers bad input with a clear 4xx and changes nothing', async () => {
    const revision = current().host.ctx.botStore.state.revision
    const mainId = current().host.ctx.botRoster.bots()[0]!.id
    const cases: [string, string, unknown, number, RegExp, Record<string, string>?][] = [
      ['POST', '/bots', '{"name": "Ada"', 400, /not valid JSON/],
      ['POST', '/bots', { role: 'no name' }, 400, /name/],
      ['POST', '/bots', { name: 'main' }, 400, /already/],
      ['POST', '/bots', { name: 'Ada', colour: 'blue' }, 400, /colour/],
      ['POST', '/bots', { name: 'Ada', admin: true }, 400, /admin/],
      ['POST', '/bots', { name: 'Ada@home' }, 400, /@/],
      ['POST', '/bots', { name: 'Ada' }, 415, /application\/json/, { 'content-type': 'text/plain' }],
      ['POST', '/bots', { name: 'Ada' }, 403, /Origin/, { 'content-type': 'application/json', origin: 'http://evil.example' }],
      ['POST', '/bots', JSON.stringify({ name: 'x', instructions: 'y'.repeat(MAX_BODY_BYTES) }), 413, /larger/],
      ['PATCH', '/bots/bot-404', { role: 'x' }, 404, /No Bot/],
      ['PATCH', `/bots/${mainId}`, {}, 400, /nothing to change/],
      ['PATCH', `/bots/${mainId}`, { main: false }, 403, /without a Main Bot/],
      ['DELETE', `/bots/${mainId}`, {}, 400, /reason/],
      ['DELETE', `/bots/${mainId}`, { reason: 'test' }, 403, /last Main Bot/],
      ['PUT', '/bots', { name: 'Ada' }, 405, /not allowed/],
      ['DELETE', `/bots/${mainId}`, { reason: 'x'.repeat(501) }, 400, /reason: at most 500/],
      ['DELETE', `/bots/${mainId}`, JSON.stringify({ reason: 'x'.repeat(8000) }), 413, /larger/],
      ['PATCH', '/bots/%E0%A4%A', { role: 'x' }, 400, /malformed percent-escape/],
      ['PATCH', '/bots/%', { role: 'x' }, 400, /malformed percent-escape/],
      ['PATCH', `/bots/${'x'.repeat(201)}`, { role: 'x' }, 400, /longer than/],
      ['GET', '/%zz', undefined, 400, /malformed percent-escape/],
      ...['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'].flatMap((id): [string, string, unknown, number, RegExp][] => [
        ['PATCH', `/bots/${id}`, { role: 'x' }, 404, /No Bot/],
        ['DELETE', `/bots/${id}`, { reason: 'x' }, 404, /No Bot/],
      ]),
      ['PATCH', `/bots/${mainId}/other`, { role: 'x' }, 404, /no such route/],
      ['POST', '/bots', { name: 'Ada', model: 'provider/model' }, 400, /DSH does not serve the model "provider\/model"\. The models it serves: /],
      ['PATCH', `/bots/${mainId}`, { model: 'nobody/serves-this' }, 400, /Bot Main was not changed: DSH does not serve the model "nobody\/serves-this"/],
    ]
    for (const [method, path, body, status, message, headers] of cases) {
      const r = await send(method, path, body, headers)
      expect({ method, path, status: r.status }).toEqual({ method, path, status })
      expect(r.body.error).toMatch(message)
    }
    expect(current().host.ctx.botStore.state.revision).toBe(revision)
    expect(
      current()
        .host.ctx.botRoster.bots()
        .map((b) => b.name),
    ).toEqual(['Main'])
  })

  it('finds a Bot by a name that is also an Object.prototype member', async () => {
    const created = await send('POST', '/bots', { name: 'toString' })
    expect(created.status).toBe(201)
    expect(await send('PATCH', '/bots/tostring', { role: 'Odd' })).toMatchObject({ status: 200, body: { bot: { id: created.body.bot.id, role: 'Odd' } } })
    expect(await send('PATCH', '/bots/Main%20', { role: 'Chief' })).toMatchObject({ status: 200, body: { bot: { name: 'Main', role: 'Chief' } } })
  })
})
