// The files the store writes, on real files and real processes: owner-only modes whatever the
// umask, no writing through symbolic links, fields of a newer build kept across saves, and the
// `bot-team/writer` event at open and on takeover.
import fs from 'node:fs'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { describe, expect, it } from 'vitest'
import { BotStore, type WriterEvent } from '../../../src/store/service.ts'
import { openStore, readJson, storeChild, tempHome, until } from './helpers.ts'

const mode = (file: string) => fs.statSync(file).mode & 0o777
const valid = (extra: object = {}) => ({
  version: 1,
  revision: 3,
  writtenBy: { pluginVersion: '0.1.0', at: '2025-01-01T00:00:00.000Z' },
  bots: {},
  groups: {},
  deliveries: [],
  preferences: { keep: 'me' },
  nextIds: {},
  ...extra,
})

describe('file modes (issue 10: "bot/ is created 0700 and every file the store writes 0600")', () => {
  it.each([
    ['000', 0o000],
    ['277', 0o277],
  ])('with umask %s: bot/ and state.lock/ are 0700; state.json and owner.json are 0600', async (_label, umask) => {
    const { bot } = tempHome('bot-modes-')
    const child = storeChild({ dir: bot, role: 'writer' }, { umask })
    expect((await child.ready).status.mode).toBe('writer')
    expect((await child.call('update', { key: 'a', value: 1 })).ok).toBe(true)
    expect(mode(bot)).toBe(0o700)
    expect(mode(path.join(bot, 'state.json'))).toBe(0o600)
    expect(mode(path.join(bot, 'state.lock'))).toBe(0o700)
    expect(mode(path.join(bot, 'state.lock', 'owner.json'))).toBe(0o600)
    await child.call('exit')
    await child.exited
  })

  it('with umask 0: the byte-for-byte copy of a damaged 0666 state.json is 0600, and so is its replacement', async () => {
    const { bot } = tempHome('bot-modes-')
    fs.mkdirSync(bot)
    const file = path.join(bot, 'state.json')
    fs.writeFileSync(file, '{"truncated": ')
    fs.chmodSync(file, 0o666)
    const child = storeChild({ dir: bot, role: 'writer' }, { umask: 0 })
    expect((await child.ready).status.mode).toBe('writer')
    const broken = fs.readdirSync(bot).filter((n) => n.startsWith('state.json.broken-'))
    expect(broken).toHaveLength(1)
    expect(fs.readFileSync(path.join(bot, broken[0]!), 'utf8')).toBe('{"truncated": ')
    expect(mode(path.join(bot, broken[0]!))).toBe(0o600)
    expect(mode(file)).toBe(0o600)
    await child.call('exit')
    await child.exited
  })
})

describe('symbolic links are never written through', () => {
  it('a symlinked bot/ opens read-only (reason symlink), shows the team and writes nothing there', async () => {
    const { home } = tempHome('bot-link-')
    const real = path.join(home, 'elsewhere')
    fs.mkdirSync(real)
    fs.writeFileSync(path.join(real, 'state.json'), JSON.stringify(valid()))
    const before = fs.readFileSync(path.join(real, 'state.json'))
    const bot = path.join(home, 'bot')
    fs.symlinkSync(real, bot)
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    expect(store.status()).toMatchObject({ mode: 'read-only', reason: 'symlink', message: expect.stringMatching(/bot folder .* is a symbolic link/) })
    expect(store.diagnostics().map((d) => d.code)).toContain('symlink')
    expect(store.state.preferences).toEqual({ keep: 'me' })
    await expect(
      store.update((d) => {
        d.preferences.x = 1
      }),
    ).rejects.toMatchObject({ code: 'EREADONLY', message: expect.stringMatching(/symbolic link/) })
    expect(fs.readFileSync(path.join(real, 'state.json')).equals(before)).toBe(true)
    expect(fs.readdirSync(real)).toEqual(['state.json']) // no lock, no temp file
    await fiber.dispose()
  })

  it('a symlinked state.json opens read-only; its target is untouched; once replaced by a real file the team writes', async () => {
    const { home, bot } = tempHome('bot-link-')
    fs.mkdirSync(bot)
    const target = path.join(home, 'target.json')
    fs.writeFileSync(target, JSON.stringify(valid()))
    const before = fs.readFileSync(target)
    fs.symlinkSync(target, path.join(bot, 'state.json'))
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    expect(store.status()).toMatchObject({ mode: 'read-only', reason: 'symlink', message: expect.stringMatching(/bot\/state\.json is a symbolic link/) })
    await expect(
      store.update((d) => {
        d.preferences.x = 1
      }),
    ).rejects.toMatchObject({ code: 'EREADONLY' })
    expect(fs.readFileSync(target).equals(before)).toBe(true)
    expect(fs.lstatSync(path.join(bot, 'state.json')).isSymbolicLink()).toBe(true)
    expect(fs.existsSync(path.join(bot, 'state.lock'))).toBe(false)

    fs.rmSync(path.join(bot, 'state.json'))
    fs.copyFileSync(target, path.join(bot, 'state.json'))
    await store.update((d) => {
      d.preferences.x = 1
    })
    expect(store.status()).toMatchObject({ mode: 'writer', reason: null })
    expect(readJson(path.join(bot, 'state.json')).preferences).toEqual({ keep: 'me', x: 1 })
    expect(fs.readFileSync(target).equals(before)).toBe(true)
    await fiber.dispose()
  })
})

describe('forward compatibility', () => {
  it("a newer build's fields (top level, Bot, group, delivery) survive a save by this build", async () => {
    const { bot } = tempHome('bot-compat-')
    fs.mkdirSync(bot)
    const at = '2025-01-01T00:00:00.000Z'
    const ada = {
      id: 'bot-1',
      name: 'Ada',
      role: 'Reviewer',
      instructions: '',
      avatar: { kind: 'shape', shape: 'circle' },
      colour: '#112233',
      permissionPreset: 'default',
      pinned: false,
      hidden: false,
      createdBy: 'user',
      createdAt: at,
      main: true,
      sessionParts: [],
      futureBotField: { budget: 12 },
    }
    const bob = { ...ada, id: 'bot-2', name: 'Bob', main: false, futureBotField: 'bob' }
    fs.writeFileSync(
      path.join(bot, 'state.json'),
      JSON.stringify(
        valid({
          futureTopLevel: ['x', 1, { y: null }],
          bots: { 'bot-1': ada, 'bot-2': bob },
          groups: {
            'group-1': {
              id: 'group-1',
              name: 'Crew',
              members: ['bot-1', 'bot-2'],
              mode: 'everyone',
              notice: '',
              memberSessions: {},
              createdAt: at,
              futureGroupField: true,
            },
          },
          deliveries: [
            {
              id: 'delivery-1',
              from: 'bot-1',
              to: 'bot-2',
              kind: 'message',
              body: 'hi',
              hop: 0,
              replyTo: null,
              createdAt: at,
              status: 'pending',
              futureDeliveryField: 7,
            },
          ],
        }),
        null,
        2,
      ),
    )
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    // change the Bot that carries a future field, another entity kind, and the top level
    await store.update((d) => {
      d.bots['bot-1']!.name = 'Ada Lovelace'
      d.deliveries[0]!.status = 'delivered'
      d.preferences.touched = true
    })
    const onDisk = readJson(path.join(bot, 'state.json'))
    expect(onDisk.revision).toBe(4)
    expect(onDisk.futureTopLevel).toEqual(['x', 1, { y: null }])
    expect(onDisk.bots['bot-1']).toMatchObject({ name: 'Ada Lovelace', futureBotField: { budget: 12 } })
    expect(onDisk.bots['bot-2'].futureBotField).toBe('bob')
    expect(onDisk.groups['group-1'].futureGroupField).toBe(true)
    expect(onDisk.deliveries[0]).toMatchObject({ status: 'delivered', futureDeliveryField: 7 })
    await fiber.dispose()
  })

  it('a delivery carrying the retired `groupId` field still loads, and keeps it across a save', async () => {
    const { bot } = tempHome('bot-compat-')
    fs.mkdirSync(bot)
    const at = '2025-01-01T00:00:00.000Z'
    const ada = {
      id: 'bot-1',
      name: 'Ada',
      role: 'Reviewer',
      instructions: '',
      avatar: { kind: 'shape', shape: 'circle' },
      colour: '#112233',
      permissionPreset: 'default',
      pinned: false,
      hidden: false,
      createdBy: 'user',
      createdAt: at,
      main: true,
      sessionParts: [],
    }
    fs.writeFileSync(
      path.join(bot, 'state.json'),
      JSON.stringify(
        valid({
          bots: { 'bot-1': ada, 'bot-2': { ...ada, id: 'bot-2', name: 'Bob', main: false } },
          deliveries: [
            {
              id: 'delivery-1',
              from: 'bot-1',
              to: 'bot-2',
              groupId: 'group-9',
              kind: 'message',
              body: 'hi',
              hop: 1,
              replyTo: null,
              createdAt: at,
              status: 'pending',
            },
          ],
        }),
        null,
        2,
      ),
    )
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    expect(store.state.deliveries.map((d) => d.id)).toEqual(['delivery-1'])
    await store.update((d) => {
      d.deliveries[0]!.status = 'delivered'
    })
    expect(readJson(path.join(bot, 'state.json')).deliveries[0]).toMatchObject({ id: 'delivery-1', status: 'delivered', groupId: 'group-9' })
    await fiber.dispose()
  })
})

describe('bot-team/writer', () => {
  it('is emitted once when a process opens the team as the writer, and not for a follower', async () => {
    const { bot } = tempHome('bot-writer-')
    const events: WriterEvent[] = []
    const ctx = new Context()
    ctx.on('bot-team/writer', (p) => {
      events.push(p)
    })
    const fiber = await ctx.plugin(BotStore, { dir: bot, role: 'writer' })
    expect(events).toEqual([{ from: null, lockless: false, revision: 0 }])
    await ctx.botStore.update((d) => {
      d.preferences.a = 1
    })
    expect(events).toHaveLength(1)

    const follower = storeChild({ dir: bot, role: 'writer' })
    expect((await follower.ready).status.mode).toBe('follower')
    expect(follower.writerEvents).toEqual([])
    await follower.call('exit')
    await follower.exited
    await fiber.dispose()
  })

  it('is emitted when a follower takes over from a killed writer, and a listener can update right away', async () => {
    const { bot } = tempHome('bot-writer-')
    const a = storeChild({ dir: bot, role: 'writer' })
    expect((await a.ready).status.mode).toBe('writer')
    expect(a.writerEvents).toEqual([{ from: null, lockless: false, revision: 0 }])
    expect((await a.call('update', { key: 'by', value: 'A' })).ok).toBe(true)

    const events: WriterEvent[] = []
    const ctx = new Context()
    ctx.on('bot-team/writer', (p) => {
      events.push(p)
      // what a recovery service does: write as soon as it may
      void ctx.botStore.update((d) => {
        d.preferences.recovered = p.revision
      })
    })
    const fiber = await ctx.plugin(BotStore, { dir: bot, role: 'writer', followMs: 50 })
    const b = ctx.botStore
    expect(b.status()).toMatchObject({ mode: 'follower', reason: 'lock-held' })
    expect(events).toEqual([])
    await until(() => b.state.revision === 1, 'B to follow A')

    a.proc.kill('SIGKILL')
    await a.exited
    await b.update((d) => {
      d.preferences.by = 'B'
    })
    expect(events).toEqual([{ from: 'follower', lockless: false, revision: 1 }])
    await until(() => b.state.preferences.recovered === 1, "the listener's update")
    expect(readJson(path.join(bot, 'state.json')).preferences).toEqual({ by: 'B', recovered: 1 })
    expect(events).toHaveLength(1)
    await fiber.dispose()
  })
})
