// botStore.allowWriting(): a process that opened as a one-shot follower (role auto) turns out to
// host DSH's web app after activation and is allowed to write — it takes the lock, or follows the
// process that holds it. The writer setting (`role`) still wins.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore, readJson, tempHome } from './helpers.ts'

describe('botStore.allowWriting', () => {
  it('a role-auto follower takes the lock, becomes the writer and saves; a second call changes nothing', async () => {
    const { bot } = tempHome()
    const { store, fiber } = await openStore({ dir: bot, role: 'auto', longLived: false })
    expect(store.status()).toMatchObject({ mode: 'follower', reason: 'role-follower' })
    expect(fs.existsSync(path.join(bot, 'state.lock'))).toBe(false)

    expect(await store.allowWriting()).toBe('writer')
    expect(store.status()).toMatchObject({ mode: 'writer', reason: null, lockless: false })
    expect(readJson(path.join(bot, 'state.lock', 'owner.json'))).toMatchObject({ pid: process.pid })
    expect(store.diagnostics().at(-1)).toMatchObject({ code: 'took-over', message: expect.stringMatching(/hosts DSH's web app/) })
    await store.update((d) => {
      d.preferences.a = 1
    })
    expect(readJson(path.join(bot, 'state.json'))).toMatchObject({ revision: 1, preferences: { a: 1 } })

    expect(await store.allowWriting()).toBe('writer')
    expect(store.state.revision).toBe(1)
    await fiber.dispose()
  })

  it('while another process holds the lock it becomes a lock-held follower, and takes over once that process is gone', async () => {
    const { bot } = tempHome()
    const holder = await openStore({ dir: bot, role: 'writer' })
    await holder.store.update((d) => {
      d.preferences.by = 'holder'
    })
    const late = await openStore({ dir: bot, role: 'auto', longLived: false })

    expect(await late.store.allowWriting()).toBe('follower')
    expect(late.store.status()).toMatchObject({ mode: 'follower', reason: 'lock-held', holder: { pid: process.pid } })
    await expect(
      late.store.update((d) => {
        d.preferences.by = 'late'
      }),
    ).rejects.toMatchObject({ code: 'EFOLLOWER' })
    expect(readJson(path.join(bot, 'state.json')).preferences).toEqual({ by: 'holder' })

    await holder.fiber.dispose()
    await late.store.update((d) => {
      d.preferences.by = 'late'
    })
    expect(late.store.mode).toBe('writer')
    expect(readJson(path.join(bot, 'state.json'))).toMatchObject({ revision: 2, preferences: { by: 'late' } })
    await late.fiber.dispose()
  })

  it("role 'follower' (writer: never) stays a follower and never takes the lock", async () => {
    const { bot } = tempHome()
    const { store, fiber } = await openStore({ dir: bot, role: 'follower' })
    expect(await store.allowWriting()).toBe('follower')
    expect(store.status()).toMatchObject({ mode: 'follower', reason: 'role-follower' })
    await expect(
      store.update((d) => {
        d.preferences.a = 1
      }),
    ).rejects.toMatchObject({ code: 'EFOLLOWER' })
    expect(fs.existsSync(path.join(bot, 'state.lock'))).toBe(false)
    expect(fs.existsSync(path.join(bot, 'state.json'))).toBe(false)
    await fiber.dispose()
  })
})
