// The room view's server half on a real DSH web server, in-process: a room answer names its round
// on the assistant message DSH keeps (read back through the route by DSH message id, with each
// member turn's outcome), and a running round's progress is pushed as `room` events on /events.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SessionId } from '@deepseek-ai/dsh-session'
import { readRoomAnswerParts } from '../../../src/core/sources.ts'
import { serverEvents, webTeamHostPerTest } from '../../support/web-host.ts'
import { settle, user } from './helpers.ts'

const current = webTeamHostPerTest()

const roomEvents = (body: ReadableStream<Uint8Array>) => serverEvents(body, 'room')

describe('a room answer as the room view reads it', () => {
  it('names its round on the assistant message; the route answers its posts and turns by message id', async () => {
    const { host, send } = current()
    await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/mock' })
    await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/mock' })
    const group = await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'none', mode: 'everyone' })
    const postId = await host.ctx.botRooms.post(user, 'G', 'hello both')
    await settle(host, 'G')
    const roomSession = host.ctx.botStore.state.groups[group.id]!.roomSessionId!
    const answers = host.ctx.agents
      .get(SessionId(roomSession))!
      .session.events.filter((e) => e.type === 'assistant/message')
      .map((e) => (e.data as any).message)
    const answer = answers.find((m: any) => readRoomAnswerParts(m.source)?.rounds?.length)
    expect(readRoomAnswerParts(answer.source)?.rounds).toEqual([postId])
    // DSH's Session log (JSONL) keeps it with the message, so it is there after a restart too.
    const logs = (readdirSync(host.home, { recursive: true }) as string[]).filter((f) => f.endsWith('.jsonl') && f.includes(roomSession))
    const line = logs
      .flatMap((f) => readFileSync(join(host.home, f), 'utf8').split('\n'))
      .find((l) => l.includes(`"id":"${answer.id}"`) && l.includes('"assistant/message"'))
    expect(readRoomAnswerParts(JSON.parse(line!).data.message.source)?.rounds).toEqual([postId])

    const { status, body } = await send('GET', `/rooms/${group.id}/posts?message=${answer.id}`)
    expect(status).toBe(200)
    expect(body.rounds).toEqual([postId])
    expect(body.posts.map((p: any) => p.name)).toEqual(['User', 'Ada', 'Bob'])
    expect(body.turns).toEqual([
      {
        round: postId,
        turns: [
          { botId: expect.any(String), outcome: 'posted', post: body.posts[1].seq },
          { botId: expect.any(String), outcome: 'posted', post: body.posts[2].seq },
        ],
      },
    ])
    expect(body.notes).toEqual([])
    // The room's opening answer names no round, only its own opening line (a note, as data);
    // a message that is not the room's is a 404.
    const opening = answers.find((m: any) => readRoomAnswerParts(m.source)?.rounds?.length === 0)
    expect((await send('GET', `/rooms/${group.id}/posts?message=${opening.id}`)).body).toMatchObject({
      rounds: [],
      notes: [{ kind: 'open', text: 'Group G is open: Ada, Bob; no admin; everyone mode.' }],
    })
    expect((await send('GET', `/rooms/${group.id}/posts?message=msg-nope`)).status).toBe(404)
    expect((await send('GET', `/rooms/${group.id}/posts?message=${answer.id}&round=${postId}`)).status).toBe(400)
  })

  it("pushes the round's progress on /events: who speaks, then who posted, then done", async () => {
    const { host, origin } = current()
    await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/mock' })
    await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/mock' })
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'none', mode: 'everyone' })
    await settle(host, 'G')
    const controller = new AbortController()
    const res = await fetch(`${origin}/bot-team/api/events`, { signal: controller.signal })
    const next = roomEvents(res.body!)
    const postId = await host.ctx.botRooms.post(user, 'G', 'hello both')
    const seen: any[] = []
    for (let e = await next(); ; e = await next()) {
      seen.push(e)
      if (e.done) break
    }
    controller.abort()
    expect(seen.every((e) => e.round === postId)).toBe(true)
    expect(seen[0]).toMatchObject({ speaking: 'Ada', posted: [], done: false })
    expect(seen).toContainEqual(expect.objectContaining({ speaking: 'Bob', posted: ['Ada'], done: false }))
    expect(seen.at(-1)).toMatchObject({ posted: ['Ada', 'Bob'], passed: [], missed: [], done: true })
    expect(seen.at(-1).speaking).toBeUndefined()
  })
})
