// The team feed (`/events`) cannot be flooded, on DSH's real web server in-process: streams are
// limited per client and in total with slots kept for paired browsers (a paired one still gets in
// when unpaired peers hold every other slot), and a reader that stops reading is dropped once its
// unsent bytes pass the cap while a reader that reads gets every event.
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_STREAMS, PAIRED_SLOTS, STREAM_BYTES_MAX, STREAMS_PER_CLIENT } from '../../../src/web/team-api-routes.ts'
import { serverEvents, webTeamHostPerTest } from '../../support/web-host.ts'

const current = webTeamHostPerTest()
const open: ClientRequest[] = []
afterEach(() => {
  for (const req of open.splice(0)) req.destroy()
})

/** Open `/events` from a loopback address; resolves with the response (left unread) once its head is in. */
function stream(localAddress: string, path = '/bot-team/api/events'): Promise<IncomingMessage> {
  const port = Number(new URL(current().origin).port)
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      res.pause()
      resolve(res)
    })
    req.on('error', reject)
    req.end()
    open.push(req)
  })
}

describe('the team feed cannot be flooded', () => {
  it('limits streams per client and keeps the last slots for paired browsers', async () => {
    expect(MAX_STREAMS - PAIRED_SLOTS).toBe(3 * STREAMS_PER_CLIENT)
    const statuses = async (address: string, n: number) => Promise.all(Array.from({ length: n }, () => stream(address).then((r) => r.statusCode)))
    expect(await statuses('127.0.0.1', STREAMS_PER_CLIENT)).toEqual(Array(STREAMS_PER_CLIENT).fill(200))
    const ninth = await stream('127.0.0.1')
    expect(ninth.statusCode).toBe(503)
    expect(await statuses('127.0.0.2', STREAMS_PER_CLIENT)).toEqual(Array(STREAMS_PER_CLIENT).fill(200))
    expect(await statuses('127.0.0.3', STREAMS_PER_CLIENT)).toEqual(Array(STREAMS_PER_CLIENT).fill(200))
    // Every slot but the paired ones is taken by peers that never read.
    const late = await stream('127.0.0.4')
    expect(late.statusCode).toBe(503)
    late.resume()
    const body = await new Promise<string>((r) => {
      let text = ''
      late.on('data', (c) => (text += c))
      late.on('end', () => r(text))
    })
    expect(JSON.parse(body).error).toMatch(/kept for paired browsers/)
    // A paired browser takes a ticket (EventSource sends no header) and still gets in.
    const headers = await current().pairedHeaders()
    const ticket = await current().send('POST', '/events/ticket', {}, headers)
    expect(ticket).toMatchObject({ status: 201, body: { ticket: expect.any(String) } })
    expect((await current().send('POST', '/events/ticket', {})).status).toBe(403)
    const paired = await stream('127.0.0.4', `/bot-team/api/events?ticket=${ticket.body.ticket}`)
    expect(paired.statusCode).toBe(200)
    const unknown = await stream('127.0.0.4', '/bot-team/api/events?ticket=not-a-ticket')
    expect(unknown.statusCode).toBe(503)
  })

  it('drops a reader that stops reading once its unsent bytes pass the cap; a reader that reads gets every event', async () => {
    const { host, origin } = current()
    const stalled = await stream('127.0.0.1')
    expect(stalled.statusCode).toBe(200)
    const controller = new AbortController()
    const live = await fetch(`${origin}/bot-team/api/events`, { signal: controller.signal })
    const nextRoom = serverEvents(live.body!, 'room')
    const big = 'x'.repeat(64 * 1024)
    const events = Math.ceil((3 * STREAM_BYTES_MAX) / big.length)
    for (let i = 0; i < events; i++) {
      host.ctx.emit('bot-team/room-progress', { groupId: 'group-1', round: `r${i}`, filler: big } as never)
      expect((await nextRoom()).round).toBe(`r${i}`)
    }
    controller.abort()
    // The stalled stream was cut: reading it now ends after far less than was sent to it.
    stalled.resume()
    const received = await new Promise<number>((resolve) => {
      let n = 0
      stalled.on('data', (c: Buffer) => (n += c.length))
      stalled.on('error', () => resolve(n))
      stalled.on('end', () => resolve(n))
      stalled.on('close', () => resolve(n))
    })
    expect(received).toBeLessThan(events * big.length)
  })
})
