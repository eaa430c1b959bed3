import { describe, expect, it } from 'vitest'
import { adminRaises, createRaises, mainRaises, presetRank, raisesPreset, setsWorkFolder, updateRaises } from '../../../src/web/raises.ts'

describe("which changes raise a Bot's authority", () => {
  it('ranks read-only < workspace-write < danger-full-access, and anything unknown lowest', () => {
    expect(presetRank('read-only')).toBeLessThan(presetRank('workspace-write'))
    expect(presetRank('workspace-write')).toBeLessThan(presetRank('danger-full-access'))
    for (const unknown of ['custom', '', 'toString', '__proto__', undefined, 3, null]) {
      expect(presetRank(unknown)).toBeLessThan(presetRank('read-only'))
    }
  })

  it('counts only a move to a higher rank as raising', () => {
    expect(raisesPreset('read-only', 'workspace-write')).toBe(true)
    expect(raisesPreset('workspace-write', 'danger-full-access')).toBe(true)
    expect(raisesPreset('custom', 'read-only')).toBe(true) // from a preset we do not know to any known one
    expect(raisesPreset('danger-full-access', 'read-only')).toBe(false)
    expect(raisesPreset('workspace-write', 'workspace-write')).toBe(false)
    expect(raisesPreset('read-only', 'custom')).toBe(false) // unknown requested: the roster refuses it
  })

  it("reads the preset of an update body (own property only) against the Bot's current one", () => {
    expect(updateRaises('read-only', { permissionPreset: 'danger-full-access', role: 'x' })).toBe(true)
    expect(updateRaises('danger-full-access', { permissionPreset: 'read-only' })).toBe(false)
    expect(updateRaises('read-only', { role: 'x' })).toBe(false)
    expect(updateRaises('read-only', Object.create({ permissionPreset: 'danger-full-access' }))).toBe(false)
    expect(updateRaises('read-only', null)).toBe(false)
    expect(updateRaises('read-only', 'danger-full-access')).toBe(false)
  })

  it('counts a new Bot above the default preset (workspace-write) as raising', () => {
    expect(createRaises({ name: 'Ada', permissionPreset: 'danger-full-access' })).toBe(true)
    expect(createRaises({ name: 'Ada', permissionPreset: 'workspace-write' })).toBe(false)
    expect(createRaises({ name: 'Ada', permissionPreset: 'read-only' })).toBe(false)
    expect(createRaises({ name: 'Ada' })).toBe(false)
  })

  it('counts any admin that may be a Bot other than the current admin as raising (fails closed), and nothing else', () => {
    const live: Record<string, string> = { ada: 'bot-2', 'bot-2': 'bot-2', bob: 'bot-3', 'bot-3': 'bot-3' }
    const botId = (ref: string) => (Object.hasOwn(live, ref.toLowerCase()) ? live[ref.toLowerCase()] : undefined)
    expect(adminRaises(undefined, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada' }, botId)).toBe(true) // create with an admin
    expect(adminRaises('bot-2', { admin: 'bot-3' }, botId)).toBe(true) // handing the role to another Bot
    expect(adminRaises('bot-2', { admin: ' bot-3 ' }, botId)).toBe(true) // spaces: the rooms service trims them
    expect(adminRaises('bot-2', { admin: 'ADA' }, botId)).toBe(false) // the same admin again
    expect(adminRaises('bot-2', { admin: ' ada ' }, botId)).toBe(false)
    expect(adminRaises('bot-2', { admin: 'none' }, botId)).toBe(false)
    expect(adminRaises('bot-2', { admin: ' NONE ' }, botId)).toBe(false)
    expect(adminRaises('bot-2', { admin: null }, botId)).toBe(false)
    expect(adminRaises(undefined, { admin: 'Nobody' }, botId)).toBe(true) // unresolved: pairing first, then the service refuses it
    expect(adminRaises(undefined, { admin: 7 }, botId)).toBe(true) // not text: the same
    expect(adminRaises('bot-2', { members: ['Ada', 'Bob'], notice: 'x', mode: 'everyone' }, botId)).toBe(false)
    expect(adminRaises(undefined, Object.create({ admin: 'Ada' }), botId)).toBe(false) // own properties only
  })

  it('counts making a Bot that is not a Main Bot one as raising (fails closed), and taking the role away as not', () => {
    expect(mainRaises(false, { main: true })).toBe(true)
    expect(mainRaises(false, { name: 'Ada', main: 'yes' })).toBe(true) // not false: pairing first, then the roster refuses it
    expect(mainRaises(false, { main: false })).toBe(false)
    expect(mainRaises(false, { role: 'x' })).toBe(false)
    expect(mainRaises(true, { main: true })).toBe(false) // already a Main Bot
    expect(mainRaises(true, { main: false })).toBe(false)
    expect(mainRaises(false, Object.create({ main: true }))).toBe(false) // own properties only
  })

  it('counts setting or clearing a working folder as raising', () => {
    expect(setsWorkFolder({ workFolder: '/srv/x' })).toBe(true)
    expect(setsWorkFolder({ workFolder: null })).toBe(true)
    expect(setsWorkFolder({ role: 'x' })).toBe(false)
    expect(setsWorkFolder(null)).toBe(false)
  })
})
