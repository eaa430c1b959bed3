// Two real Node processes on one temp DSH_HOME: single writer, follower, takeover after SIGKILL,
// and ELOCKLOST when another process removes and re-takes the lock.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { stateSchema } from '../../../src/store/schema.ts'
import { openStore, readJson, storeChild, tempHome, until } from './helpers.ts'

describe('two DSH processes on one DSH_HOME', () => {
  it('the second is a follower; 1,000 alternating requests lose 0 writer updates; SIGKILL the writer → the follower takes over', async () => {
    const { bot } = tempHome()
    const a = storeChild({ dir: bot, role: 'writer' })
    const aReady = await a.ready
    expect(aReady.status).toMatchObject({ mode: 'writer' })
    const b = storeChild({ dir: bot, role: 'writer' })
    const bReady = await b.ready
    expect(bReady.status).toMatchObject({ mode: 'follower', reason: 'lock-held', holder: { pid: a.proc.pid } })

    // the follower sees the writer's changes
    expect((await a.call('update', { key: 'hello', value: 'from A' })).ok).toBe(true)
    await until(async () => (await b.call('state')).state.preferences.hello === 'from A', 'B to follow A')

    let written = 0
    let refused = 0
    const refusals = new Set<string>()
    for (let i = 0; i < 1000; i++) {
      const via = i % 2 === 0 ? a : b
      const r = await via.call('update', { key: `u${i}`, value: i })
      if (r.ok) written++
      else {
        refused++
        expect(r.code).toBe('EFOLLOWER')
        refusals.add(r.message)
      }
      expect(r.ok).toBe(via === a)
    }
    expect(written).toBe(500)
    expect(refused).toBe(500)
    // the follower says why, and what happens next
    expect([...refusals][0]).toMatch(new RegExp(`Another DSH process \\(pid ${a.proc.pid}`))
    expect([...refusals][0]).toMatch(/takes over/)

    const onDisk = stateSchema.parse(readJson(path.join(bot, 'state.json')))
    const lost = Array.from({ length: 500 }, (_, k) => 2 * k).filter((i) => onDisk.preferences[`u${i}`] !== i)
    expect(lost).toEqual([])
    expect(Array.from({ length: 500 }, (_, k) => 2 * k + 1).some((i) => `u${i}` in onDisk.preferences)).toBe(false)
    expect(onDisk.revision).toBe(501)
    await until(async () => (await b.call('state')).state.revision === 501, 'B to reach revision 501')

    // SIGKILL the writer: its lock stays on disk, but it names a dead pid on this host
    a.proc.kill('SIGKILL')
    await a.exited
    expect(fs.existsSync(path.join(bot, 'state.lock', 'owner.json'))).toBe(true)
    const t0 = Date.now()
    const r = await b.call('update', { key: 'after', value: 'B writes' })
    const takeoverMs = Date.now() - t0
    expect(r).toMatchObject({ ok: true, revision: 502 })
    expect(takeoverMs).toBeLessThan(5_000) // far below the 10 s stale timeout
    const st = await b.call('status')
    expect(st.status).toMatchObject({ mode: 'writer', reason: null })
    expect(st.diagnostics.map((d: any) => d.code)).toContain('took-over')
    const final = readJson(path.join(bot, 'state.json'))
    expect(final.preferences.after).toBe('B writes')
    expect(final.preferences.u998).toBe(998)
    expect(readJson(path.join(bot, 'state.lock', 'owner.json')).pid).toBe(b.proc.pid)
    await b.call('exit')
    await b.exited
    expect(fs.existsSync(path.join(bot, 'state.lock'))).toBe(false)
  })

  it('ELOCKLOST: a writer whose lock is removed and re-taken by another process writes nothing more', async () => {
    const { bot } = tempHome()
    const a = await openStore({ dir: bot, role: 'writer' })
    await a.store.update((d) => {
      d.preferences.owner = 'A'
    })

    const thief = storeChild({ dir: bot, role: 'writer' })
    expect((await thief.ready).status.mode).toBe('follower')
    await thief.call('wipe-lock')
    const took = await thief.call('update', { key: 'owner', value: 'thief' })
    expect(took).toMatchObject({ ok: true, revision: 2 })
    expect((await thief.call('status')).status.mode).toBe('writer')

    await expect(
      a.store.update((d) => {
        d.preferences.owner = 'A again'
      }),
    ).rejects.toMatchObject({
      code: 'ELOCKLOST',
      message: expect.stringMatching(/lost ownership of bot\/state\.lock/),
    })
    const file = path.join(bot, 'state.json')
    expect(readJson(file).preferences.owner).toBe('thief')
    // the condition is surfaced, the state stays in memory, and every later save fails too
    expect(a.store.status()).toMatchObject({ mode: 'read-only', reason: 'lock-lost', lockLost: true })
    expect(a.store.diagnostics().map((d) => d.code)).toContain('lock-lost')
    expect(a.store.state.preferences.owner).toBe('A')
    await expect(
      a.store.update((d) => {
        d.preferences.x = 1
      }),
    ).rejects.toMatchObject({ code: 'ELOCKLOST' })
    expect(readJson(file).preferences).toEqual({ owner: 'thief' })

    // unloading the loser must not delete the thief's lock
    await a.fiber.dispose()
    expect(readJson(path.join(bot, 'state.lock', 'owner.json')).pid).toBe(thief.proc.pid)
    expect((await thief.call('update', { key: 'still', value: true })).ok).toBe(true)
    await thief.call('exit')
    await thief.exited
  })
})
