// The client half's team API on a real DSH web server, in-process: the team view as JSON, and the
// server-sent event stream that pushes a new view when the team changes (no polling).
import { describe, expect, it } from 'vitest'
import { serverEvents, webTeamHostPerTest } from '../../support/web-host.ts'
import { settle, user } from '../rooms/helpers.ts'

const current = webTeamHostPerTest()

const teamEvents = (body: ReadableStream<Uint8Array>) => serverEvents(body, 'team')

describe('the team API of the client half', () => {
  it('lists the Main Bot first with its look and idle status', async () => {
    const { status, body } = await current().send('GET', '/team')
    expect(status).toBe(200)
    expect(body).toMatchObject({ mode: 'writer', problems: [], groups: [] })
    expect(body.bots).toEqual([
      expect.objectContaining({ name: 'Main', main: true, status: 'idle', queued: 0, colour: expect.stringMatching(/^#/), chatSessionId: expect.any(String) }),
    ])
  })

  it('pushes a new team view on its event stream when a Bot is created', async () => {
    const controller = new AbortController()
    const res = await fetch(`${current().origin}/bot-team/api/events`, { signal: controller.signal })
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const next = teamEvents(res.body!)
    expect((await next()).bots.map((b: any) => b.name)).toEqual(['Main'])
    expect((await current().send('POST', '/bots', { name: 'Ada', role: 'Reviewer', model: 'mock/mock' })).status).toBe(201)
    let view = await next()
    while (!view.bots.some((b: any) => b.name === 'Ada')) view = await next()
    expect(view.bots.map((b: any) => b.name)).toEqual(['Main', 'Ada'])
    controller.abort()
  })

  it('answers the delivery log, and refuses a bad query with the reason', async () => {
    expect(await current().send('GET', '/deliveries')).toMatchObject({ status: 200, body: { deliveries: [] } })
    const bad = await current().send('GET', '/deliveries?limit=0')
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/limit/)
    expect((await current().send('GET', '/deliveries?color=1')).status).toBe(400)
  })

  it("answers a room's posts of one round as data, by post id", async () => {
    const { host, send } = current()
    await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/mock' })
    await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/mock' })
    const group = await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'none', mode: 'everyone' })
    const postId = await host.ctx.botRooms.post(user, 'G', 'hello both')
    await settle(host, 'G')
    const { status, body } = await send('GET', `/rooms/${group.id}/posts?round=${postId}`)
    expect(status).toBe(200)
    expect(body.group).toEqual({ id: group.id, name: 'G' })
    expect(body.posts.map((p: any) => p.text)).toEqual(['hello both', 'ok', 'ok'])
    expect(body.posts.slice(1).map((p: any) => p.name)).toEqual(['Ada', 'Bob'])
    expect(body.posts.every((p: any) => p.round === postId)).toBe(true)
    expect(body.posts[0].id).toBe(postId)
    expect((await send('GET', '/rooms/group-404/posts')).status).toBe(404)
    expect((await send('GET', `/rooms/${group.id}/other`)).status).toBe(404)
    expect((await send('GET', `/rooms/${group.id}/posts?x=1`)).status).toBe(400)
  })

  it('refuses writes and unknown sub-paths', async () => {
    expect((await current().send('POST', '/team', {})).status).toBe(405)
    expect((await current().send('GET', '/team/x')).status).toBe(404)
  })
})
