// The client half's team API on a real DSH web server, in-process: the team view as JSON, and the
// server-sent event stream that pushes a new view when the team changes (no polling).
import { describe, expect, it } from 'vitest'
import { webTeamHostPerTest } from '../../support/web-host.ts'

const current = webTeamHostPerTest()

/** Read server-sent `team` events from an open stream, one at a time. */
function teamEvents(body: ReadableStream<Uint8Array>): () => Promise<any> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  return async () => {
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = block.split('\n').find((l) => l.startsWith('data: '))
        if (block.includes('event: team') && data) return JSON.parse(data.slice(6))
        continue
      }
      const { value, done } = await reader.read()
      if (done) throw new Error('stream ended')
      buffer += decoder.decode(value, { stream: true })
    }
  }
}

describe('the team API of the client half', () => {
  it('lists the Main Bot first with its look and idle status', async () => {
    const { status, body } = await current().send('GET', '/team')
    expect(status).toBe(200)
    expect(body).toMatchObject({ mode: 'writer', problems: [], groups: [] })
    expect(body.bots).toEqual([expect.objectContaining({ name: 'Main', main: true, status: 'idle', queued: 0, colour: expect.stringMatching(/^#/), chatSessionId: expect.any(String) })])
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

  it('refuses writes and unknown sub-paths', async () => {
    expect((await current().send('POST', '/team', {})).status).toBe(405)
    expect((await current().send('GET', '/team/x')).status).toBe(404)
  })
})
