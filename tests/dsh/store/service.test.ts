// botStore on a real Cordis Context with real files: transactions, effects, modes by role.
import fs from 'node:fs'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { describe, expect, it } from 'vitest'
import { BotStore } from '../../../src/store/service.ts'
import { stateSchema } from '../../../src/store/schema.ts'
import { openStore, readJson, tempHome, until } from './helpers.ts'

describe('botStore service', () => {
  it('a fresh DSH_HOME opens as an empty team; the first save creates bot/state.json', async () => {
    const { bot } = tempHome()
    const { store, fiber } = await openStore({ dir: bot, role: 'writer', pluginVersion: '9.9.9' })
    expect(store.status()).toMatchObject({ mode: 'writer', reason: null, lockLost: false, lockless: false, revision: 0 })
    expect(store.state.bots).toEqual({})
    expect(fs.existsSync(path.join(bot, 'state.json'))).toBe(false)
    await store.update((d) => {
      d.preferences.hello = 'world'
    })
    const onDisk = readJson(path.join(bot, 'state.json'))
    expect(stateSchema.parse(onDisk)).toMatchObject({ revision: 1, preferences: { hello: 'world' }, writtenBy: { pluginVersion: '9.9.9' } })
    await fiber.dispose()
  })

  it('revision +1 per save; concurrent updates of one process are serialized and none is lost', async () => {
    const { bot } = tempHome()
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.update((d) => {
          d.preferences[`k${i}`] = i
        }),
      ),
    )
    expect(results.map((r) => r.revision)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
    const onDisk = readJson(path.join(bot, 'state.json'))
    expect(onDisk.revision).toBe(40)
    expect(Object.keys(onDisk.preferences)).toHaveLength(40)
    await fiber.dispose()
  })

  it('a transaction that throws or yields an invalid state changes nothing, in memory or on disk', async () => {
    const { bot } = tempHome()
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    await store.update((d) => {
      d.preferences.a = 1
    })
    const file = path.join(bot, 'state.json')
    const before = fs.readFileSync(file)
    await expect(
      store.update((d) => {
        d.preferences.a = 2
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    await expect(
      store.update((d) => {
        ;(d.bots as any).x = { id: 'x' }
      }),
    ).rejects.toMatchObject({ code: 'EINVALID', message: expect.stringMatching(/Nothing was saved/) })
    await expect(store.update(() => ({ nonsense: true }) as any)).rejects.toMatchObject({ code: 'EINVALID' })
    expect(store.state.preferences).toEqual({ a: 1 })
    expect(store.state.revision).toBe(1)
    expect(fs.readFileSync(file).equals(before)).toBe(true)
    // the queue is still healthy
    await store.update((d) => {
      d.preferences.a = 3
    })
    expect(readJson(file)).toMatchObject({ revision: 2, preferences: { a: 3 } })
    await fiber.dispose()
  })

  it('published state is frozen: changes go through update only', async () => {
    const { bot } = tempHome()
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    expect(() => {
      ;(store.state.preferences as any).x = 1
    }).toThrow()
    await fiber.dispose()
  })

  it('subscribe is an effect of the subscriber: it sees saves and stops when its plugin unloads', async () => {
    const { bot } = tempHome()
    const { ctx, store, fiber } = await openStore({ dir: bot, role: 'writer' })
    const seen: number[] = []
    const sub = await ctx.plugin({
      inject: ['botStore'],
      apply(c: Context) {
        c.botStore.subscribe((s, change) => {
          seen.push(s.revision)
          expect(change.source).toBe('local')
        })
      },
    })
    await store.update((d) => {
      d.preferences.a = 1
    })
    await store.update((d) => {
      d.preferences.a = 2
    })
    await sub.dispose()
    await store.update((d) => {
      d.preferences.a = 3
    })
    expect(seen).toEqual([1, 2])
    await fiber.dispose()
  })

  it('disposing the plugin releases bot/state.lock and refuses further work', async () => {
    const { bot } = tempHome()
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    expect(fs.existsSync(path.join(bot, 'state.lock', 'owner.json'))).toBe(true)
    expect(readJson(path.join(bot, 'state.lock', 'owner.json'))).toMatchObject({ pid: process.pid })
    await fiber.dispose()
    expect(fs.existsSync(path.join(bot, 'state.lock'))).toBe(false)
    await expect(
      store.update((d) => {
        d.preferences.a = 1
      }),
    ).rejects.toMatchObject({ code: 'EREADONLY' })
    // and the next process becomes the writer at once
    const second = await openStore({ dir: bot, role: 'writer' })
    expect(second.store.status().mode).toBe('writer')
    await second.fiber.dispose()
  })

  it("role 'auto' writes only in a long-lived host; a one-shot run follows and never takes the lock", async () => {
    const { bot } = tempHome()
    const oneShot = await openStore({ dir: bot, role: 'auto', longLived: false })
    expect(oneShot.store.status()).toMatchObject({ mode: 'follower', reason: 'role-follower' })
    await expect(
      oneShot.store.update((d) => {
        d.preferences.a = 1
      }),
    ).rejects.toMatchObject({
      code: 'EFOLLOWER',
      message: expect.stringMatching(/writer: always/),
    })
    expect(fs.existsSync(path.join(bot, 'state.lock'))).toBe(false)
    expect(fs.existsSync(path.join(bot, 'state.json'))).toBe(false)

    const web = await openStore({ dir: bot, role: 'auto', longLived: true })
    expect(web.store.status().mode).toBe('writer')
    await web.store.update((d) => {
      d.preferences.a = 1
    })
    // the one-shot follower sees it (file watcher / poll), and still refuses to write
    await until(() => oneShot.store.state.revision === 1, 'follower to see revision 1')
    expect(oneShot.store.state.preferences).toEqual({ a: 1 })
    await expect(
      oneShot.store.update((d) => {
        d.preferences.b = 1
      }),
    ).rejects.toMatchObject({ code: 'EFOLLOWER' })
    await web.fiber.dispose()
    await expect(
      oneShot.store.update((d) => {
        d.preferences.b = 1
      }),
    ).rejects.toMatchObject({ code: 'EFOLLOWER' })
    await oneShot.fiber.dispose()
  })

  it('a follower notices a rewritten file and publishes it with source "disk"', async () => {
    const { bot } = tempHome()
    const writer = await openStore({ dir: bot, role: 'writer' })
    const follower = await openStore({ dir: bot, role: 'follower' })
    const changes: Array<[number, string]> = []
    follower.store.subscribe((s, c) => changes.push([s.revision, c.source]))
    for (let i = 1; i <= 3; i++)
      await writer.store.update((d) => {
        d.preferences.n = i
      })
    await until(() => follower.store.state.revision === 3, 'follower at revision 3')
    expect(changes.at(-1)).toEqual([3, 'disk'])
    expect(follower.store.state.preferences).toEqual({ n: 3 })
    await follower.fiber.dispose()
    await writer.fiber.dispose()
  })

  it('config is validated by Cordis (Standard Schema): a relative dir fails to load', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(BotStore, { dir: 'relative/bot' })).rejects.toThrow(/absolute/)
  })
})
