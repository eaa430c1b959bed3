import { describe, expect, it } from 'vitest'
import { emptyState, stateSchema } from '../../../src/store/schema.ts'
import { KnownValid, validateState } from '../../../src/store/validate.ts'

const schedule = {
  id: 'schedule-1',
  target: { kind: 'bot', botId: 'bot-1' },
  prompt: 'check the build',
  rule: { kind: 'every', minutes: 30 },
  createdBy: 'user',
  createdAt: '2026-01-01T00:00:00.000Z',
  nextDueAt: '2026-01-01T00:30:00.000Z',
  runs: 0,
}

describe('team state fields of pause and schedules', () => {
  it('the incremental validator keeps paused and schedules (as stateSchema does)', () => {
    const state = { ...emptyState(), paused: { at: '2026-01-01T00:00:00.000Z', by: 'user' }, schedules: [schedule] }
    const result = validateState(state, new KnownValid())
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.state.paused).toEqual(state.paused)
    expect(result.state.schedules).toEqual([schedule])
    expect(stateSchema.parse(state).schedules).toEqual([schedule])
  })

  it('refuses an every-N-minutes schedule under five minutes', () => {
    const state = { ...emptyState(), schedules: [{ ...schedule, rule: { kind: 'every', minutes: 2 } }] }
    expect(validateState(state, new KnownValid()).ok).toBe(false)
  })

  it('a team without the fields stays valid', () => {
    expect(validateState(emptyState(), new KnownValid()).ok).toBe(true)
  })
})
