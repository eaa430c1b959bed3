// The operations API (pause, scheduled tasks, diagnostics) on DSH's real web server, in-process:
// changes need a paired browser; bad input is a clear 4xx that changes nothing; the diagnostics
// download is the scrubbed log.
import { describe, expect, it } from 'vitest'
import { webTeamHostPerTest } from '../../support/web-host.ts'

const web = webTeamHostPerTest()

const pair = () => web().pairedHeaders()

describe('the operations API', () => {
  it('refuses pausing, scheduling and reading diagnostics without a paired browser, and changes nothing', async () => {
    const revision = web().host.ctx.botStore.state.revision
    for (const [method, path, body] of [
      ['PUT', '/pause', { paused: true }],
      ['POST', '/schedules', { bot: 'Main', prompt: 'x', every_minutes: 10 }],
      ['GET', '/diagnostics', undefined],
    ] as const) {
      const r = await web().send(method, path, body)
      expect({ path, status: r.status }).toEqual({ path, status: 403 })
      expect(r.body.error).toMatch(/paired team page/)
    }
    expect(web().host.ctx.botStore.state.revision).toBe(revision)
    expect(await web().send('GET', '/pause')).toEqual({ status: 200, body: { paused: null } })
  })

  it('pauses and resumes from a paired browser', async () => {
    const paired = await pair()
    const on = await web().send('PUT', '/pause', { paused: true, reason: 'holiday' }, paired)
    expect(on).toMatchObject({ status: 200, body: { paused: { by: 'user', reason: 'holiday' } } })
    expect(web().host.ctx.botPause.isPaused()).toBe(true)
    expect(await web().send('PUT', '/pause', { paused: 'yes' }, paired)).toMatchObject({ status: 400, body: { error: /paused: must be true or false/ } })
    expect(await web().send('PUT', '/pause', { paused: false }, paired)).toEqual({ status: 200, body: { paused: null } })
    expect(web().host.ctx.botPause.isPaused()).toBe(false)
  })

  it('creates, lists and deletes scheduled tasks; bad input is a 400 that changes nothing', async () => {
    const paired = await pair()
    const revision = web().host.ctx.botStore.state.revision
    const bad: [unknown, RegExp][] = [
      [{ bot: 'Main', prompt: 'x', every_minutes: 2 }, /every_minutes: at least 5 minutes/],
      [{ bot: 'Main', prompt: 'x', daily: { time: '09:00', time_zone: 'Nowhere/City' } }, /time zone/],
      [{ bot: 'Main', prompt: 'x', every_minutes: 10, at: '2099-01-01T00:00:00Z' }, /exactly one/],
      [{ bot: 'Nobody', prompt: 'x', every_minutes: 10 }, /No Bot named/],
      [{ bot: 'Main', prompt: '', every_minutes: 10 }, /prompt/],
      [{ bot: 'Main', prompt: 'x', every_minutes: 10, extra: 1 }, /extra/],
    ]
    for (const [body, message] of bad) {
      const r = await web().send('POST', '/schedules', body, paired)
      expect(r.status).toBeGreaterThanOrEqual(400)
      expect(r.status).toBeLessThan(500)
      expect(r.body.error).toMatch(message)
    }
    expect(web().host.ctx.botStore.state.revision).toBe(revision)

    const created = await web().send(
      'POST',
      '/schedules',
      { bot: 'Main', prompt: 'summarise the day', daily: { time: '18:00', time_zone: 'Europe/Berlin' } },
      paired,
    )
    expect(created).toMatchObject({
      status: 201,
      body: { schedule: { id: 'schedule-1', createdBy: 'user', rule: { kind: 'daily', time: '18:00', timeZone: 'Europe/Berlin' } } },
    })
    expect((await web().send('GET', '/schedules')).body.schedules.map((s: any) => s.id)).toEqual(['schedule-1'])
    expect(await web().send('DELETE', '/schedules/schedule-1')).toMatchObject({ status: 200, body: { deleted: { id: 'schedule-1' } } })
    expect(await web().send('DELETE', '/schedules/schedule-1')).toMatchObject({ status: 404 })
    expect((await web().send('GET', '/schedules')).body.schedules).toEqual([])
  })

  it('downloads the diagnostics log as a file, with the pause it recorded', async () => {
    const paired = await pair()
    await web().send('PUT', '/pause', { paused: true }, paired)
    await web().host.ctx.botDiagnostics.flushed()
    const res = await fetch(`${web().origin}/bot-team/api/diagnostics?download=1`, { headers: paired })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/)
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="bot-team-diagnostics.jsonl"')
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => l.kind)).toEqual(expect.arrayContaining(['start', 'pause']))
  })
})
