import { describe, expect, it } from 'vitest'
import { createRaises, presetRank, raisesPreset, updateRaises } from '../../../src/web/raises.ts'

describe('which changes raise a Bot\'s authority', () => {
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

  it('reads the preset of an update body (own property only) against the Bot\'s current one', () => {
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
})
