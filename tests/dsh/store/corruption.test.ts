// Corruption matrix on real files: every kind keeps the original byte for byte and lands in the
// right mode; plus the no-lock fallback (a lock function that fails like ENOTSUP/EPERM/ENOSYS).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { STATE_VERSION, stateSchema } from '../../../src/store/schema.ts'
import type { LockFn } from '../../../src/store/lock.ts'
import { openStore, readJson, storeChild, tempHome } from './helpers.ts'

const valid = () => ({
  version: STATE_VERSION,
  revision: 4,
  writtenBy: { pluginVersion: '0.1.0', at: '2025-01-01T00:00:00.000Z' },
  bots: {},
  groups: {},
  deliveries: [],
  budgets: [],
  preferences: { keep: 'me' },
  nextIds: { bot: 1 },
})
const text = (v: unknown) => Buffer.from(JSON.stringify(v, null, 2))

type Kind = { name: string; make: (file: string) => void; expect: 'broken-copy' | 'newer-version' | 'unreadable' }
const kinds: Kind[] = [
  { name: 'truncated JSON', make: (f) => fs.writeFileSync(f, text(valid()).subarray(0, 57)), expect: 'broken-copy' },
  { name: 'random bytes', make: (f) => fs.writeFileSync(f, Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, 0x7b, 0x22, 0x0a, 0x93])), expect: 'broken-copy' },
  { name: 'empty file', make: (f) => fs.writeFileSync(f, ''), expect: 'broken-copy' },
  { name: 'valid JSON of the wrong shape', make: (f) => fs.writeFileSync(f, '{"bots":[{"name":"x"}],"hello":"world"}'), expect: 'broken-copy' },
  { name: 'a JSON array', make: (f) => fs.writeFileSync(f, '[1,2,3]'), expect: 'broken-copy' },
  { name: 'wrong field types', make: (f) => fs.writeFileSync(f, text({ ...valid(), revision: 'four', preferences: [] })), expect: 'broken-copy' },
  {
    name: 'a bot whose key differs from its id (schema refinement)',
    make: (f) => fs.writeFileSync(f, text({ ...valid(), bots: { a: { id: 'b' } } })),
    expect: 'broken-copy',
  },
  { name: 'newer version', make: (f) => fs.writeFileSync(f, text({ ...valid(), version: STATE_VERSION + 1, futureField: { x: 1 } })), expect: 'newer-version' },
  {
    name: 'a directory in its place',
    make: (f) => {
      fs.mkdirSync(f)
      fs.writeFileSync(path.join(f, 'inside.txt'), 'keep')
    },
    expect: 'unreadable',
  },
]

function snapshot(file: string): Buffer | string[] {
  return fs.statSync(file).isDirectory() ? fs.readdirSync(file) : fs.readFileSync(file)
}

describe('corruption matrix', () => {
  it.each(kinds)('$name', async (kind) => {
    const { bot } = tempHome('bot-corrupt-')
    fs.mkdirSync(bot, { recursive: true })
    const file = path.join(bot, 'state.json')
    kind.make(file)
    const original = snapshot(file)
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    const status = store.status()
    const diags = store.diagnostics()
    const broken = fs.readdirSync(bot).filter((n) => n.startsWith('state.json.broken-'))
    if (kind.expect === 'broken-copy') {
      expect(status).toMatchObject({ mode: 'writer', reason: null })
      expect(broken).toHaveLength(1)
      expect(fs.readFileSync(path.join(bot, broken[0]!)).equals(original as Buffer)).toBe(true)
      expect(diags.find((d) => d.code === 'broken-copy')).toMatchObject({ level: 'warn', file: broken[0] })
      expect(store.state.revision).toBe(0)
      expect(store.state.bots).toEqual({})
      // the damaged file was replaced by a valid empty team, and saving works
      expect(stateSchema.safeParse(readJson(file)).success).toBe(true)
      await store.update((d) => {
        d.preferences.after = true
      })
      expect(readJson(file).preferences).toEqual({ after: true })
    } else {
      expect(status).toMatchObject({ mode: 'read-only', reason: kind.expect })
      expect(broken).toEqual([])
      expect(diags.map((d) => d.code)).toContain(kind.expect)
      const refused = store.update((d) => {
        d.preferences.x = 1
      })
      await expect(refused).rejects.toMatchObject({ code: 'EREADONLY' })
      await expect(refused).rejects.toThrow(kind.expect === 'newer-version' ? /Upgrade the Bot Team plugin/ : /readable regular file/)
      expect(snapshot(file)).toEqual(original)
      expect(fs.existsSync(path.join(bot, 'state.lock'))).toBe(false)
      if (kind.expect === 'newer-version') expect(store.state.preferences).toEqual({ keep: 'me' }) // the team is shown
    }
    await fiber.dispose()
    expect(snapshot(kind.expect === 'broken-copy' ? path.join(bot, broken[0]!) : file)).toEqual(original)
  })

  it('unreadable file mode (EACCES) → read-only, file untouched', async () => {
    const { home, bot } = tempHome('bot-corrupt-')
    fs.mkdirSync(bot, { recursive: true })
    const file = path.join(bot, 'state.json')
    fs.writeFileSync(file, text(valid()))
    fs.chmodSync(file, 0o000)
    const original = fs.statSync(file)
    // root reads anything, so run the second DSH process as an unprivileged user then
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    if (process.getuid?.() === 0) {
      fs.chmodSync(home, 0o777)
      fs.chmodSync(bot, 0o777)
    }
    const child = storeChild({ dir: bot, role: 'writer' }, asUser)
    const ready = await child.ready
    expect(ready.status).toMatchObject({ mode: 'read-only', reason: 'unreadable', message: expect.stringMatching(/EACCES/) })
    const r = await child.call('update', { key: 'x', value: 1 })
    expect(r).toMatchObject({ ok: false, code: 'EREADONLY' })
    await child.call('exit')
    await child.exited
    fs.chmodSync(file, 0o600)
    expect(fs.readFileSync(file).equals(text(valid()))).toBe(true)
    expect(fs.statSync(file).mtimeMs).toBe(original.mtimeMs)
    expect(fs.readdirSync(bot).filter((n) => n !== 'state.json')).toEqual([])
  })

  it('the copy fails → read-only; the damaged original stays as it is', async () => {
    const { bot } = tempHome('bot-corrupt-')
    fs.mkdirSync(bot, { recursive: true })
    const file = path.join(bot, 'state.json')
    fs.writeFileSync(file, '{"truncated": ')
    const copyFile = async () => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })
    }
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' }, { copyFile })
    expect(store.status()).toMatchObject({ mode: 'read-only', reason: 'backup-failed', message: expect.stringMatching(/ENOSPC/) })
    await expect(
      store.update((d) => {
        d.preferences.x = 1
      }),
    ).rejects.toMatchObject({ code: 'EREADONLY' })
    expect(fs.readFileSync(file, 'utf8')).toBe('{"truncated": ')
    expect(fs.readdirSync(bot).filter((n) => n.startsWith('state.json.broken-'))).toEqual([])
    await fiber.dispose()
  })

  it('after a repair, the next request re-opens the team and writes', async () => {
    const { bot } = tempHome('bot-corrupt-')
    fs.mkdirSync(bot, { recursive: true })
    const file = path.join(bot, 'state.json')
    fs.writeFileSync(file, text({ ...valid(), version: STATE_VERSION + 1 }))
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' })
    expect(store.status().reason).toBe('newer-version')
    fs.writeFileSync(file, text(valid())) // "upgrade" by restoring a current file
    await store.update((d) => {
      d.preferences.fixed = true
    })
    expect(store.status().mode).toBe('writer')
    expect(readJson(file)).toMatchObject({ revision: 5, preferences: { keep: 'me', fixed: true } })
    await fiber.dispose()
  })
})

describe('no-lock fallback', () => {
  const failing =
    (code: string): LockFn =>
    async () => {
      throw Object.assign(new Error(`lock: operation not supported`), { code })
    }

  it.each(['ENOTSUP', 'EPERM', 'ENOSYS'])('locking fails with %s → warns clearly and still saves', async (code) => {
    const { bot } = tempHome('bot-nolock-')
    const { store, fiber } = await openStore({ dir: bot, role: 'writer' }, { lock: failing(code) })
    const status = store.status()
    expect(status).toMatchObject({ mode: 'writer', lockless: true })
    expect(status.message).toMatch(/WITHOUT a lock/)
    expect(status.message).toMatch(/overwrite each other/)
    expect(store.diagnostics().find((d) => d.code === 'lockless')).toMatchObject({ level: 'warn', message: expect.stringContaining(code) })
    await store.update((d) => {
      d.preferences.saved = code
    })
    expect(readJson(path.join(bot, 'state.json')).preferences).toEqual({ saved: code })
    expect(fs.existsSync(path.join(bot, 'state.lock'))).toBe(false)
    await fiber.dispose()
  })

  it('requireLock: true → read-only instead, nothing written', async () => {
    const { bot } = tempHome('bot-nolock-')
    const { store, fiber } = await openStore({ dir: bot, role: 'writer', requireLock: true }, { lock: failing('ENOTSUP') })
    expect(store.status()).toMatchObject({ mode: 'read-only', reason: 'lock-unavailable' })
    await expect(
      store.update((d) => {
        d.preferences.x = 1
      }),
    ).rejects.toMatchObject({ code: 'EREADONLY', message: expect.stringMatching(/requireLock/) })
    expect(fs.existsSync(path.join(bot, 'state.json'))).toBe(false)
    await fiber.dispose()
  })
})
