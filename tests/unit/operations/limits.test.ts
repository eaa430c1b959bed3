import { describe, expect, it } from 'vitest'
import { Config } from '../../../src/config.ts'
import {
  configLimits,
  effectiveLimits,
  LIMIT_KEYS,
  LimitOverrides,
  raisedLimits,
  ROOM_LIMIT_KEYS,
  TEAM_LIMIT_KEYS,
  type Limits,
} from '../../../src/core/limits.ts'
import { DEFAULT_LIMITS } from '../../../src/core/limits.ts'
import { emptyState } from '../../../src/store/schema.ts'
import { KnownValid, validateState } from '../../../src/store/validate.ts'

const config = configLimits(Config.parse({}))

describe('effectiveLimits', () => {
  it('without overrides gives the config values, as a new object', () => {
    const got = effectiveLimits(config, undefined)
    expect(got).toEqual(config)
    expect(got).not.toBe(config)
    expect(effectiveLimits(config, {})).toEqual(config)
  })

  it('an override wins over the config value for every limit, one at a time', () => {
    for (const key of LIMIT_KEYS) {
      const value = config[key] === 1 ? 2 : 1
      const got = effectiveLimits(config, { [key]: value })
      expect(got[key]).toBe(value)
      for (const other of LIMIT_KEYS) if (other !== key) expect(got[other]).toBe(config[other])
    }
  })

  it('gives only the keys the caller enforces and ignores overrides of the others', () => {
    expect(effectiveLimits({ workBudget: 40 }, { workBudget: 7, hopLimit: 2, turnTimeoutMs: 500 })).toEqual({ workBudget: 7 })
    expect(effectiveLimits({ maxBots: 50, createsPerTurn: 3 }, { hopLimit: 2 })).toEqual({ maxBots: 50, createsPerTurn: 3 })
  })

  it('an override of 0 (keepFinished, extraTurns) is an override, not "unset"', () => {
    expect(effectiveLimits({ keepFinished: 500, extraTurns: 2 }, { keepFinished: 0, extraTurns: 0 })).toEqual({ keepFinished: 0, extraTurns: 0 })
  })

  it('does not change the config object or the overrides', () => {
    const base = { hopLimit: 6 }
    const overrides = { hopLimit: 2 }
    effectiveLimits(base, overrides)
    expect(base).toEqual({ hopLimit: 6 })
    expect(overrides).toEqual({ hopLimit: 2 })
  })
})

describe('configLimits', () => {
  it('is the team section plus rooms.limits over the rooms defaults', () => {
    const parsed = Config.parse({ team: { hopLimit: 3 }, rooms: { limits: { turnTimeoutMs: 300 } } })
    const flat = configLimits(parsed)
    expect(flat.hopLimit).toBe(3)
    expect(flat.sendsPerTurn).toBe(5)
    expect(flat.turnTimeoutMs).toBe(300)
    expect(flat.windowPosts).toBe(DEFAULT_LIMITS.windowPosts)
    expect(Object.keys(flat).sort()).toEqual([...LIMIT_KEYS].sort())
  })

  it('the team and room keys do not clash (one flat namespace)', () => {
    expect(new Set(LIMIT_KEYS).size).toBe(TEAM_LIMIT_KEYS.length + ROOM_LIMIT_KEYS.length)
  })
})

describe('LimitOverrides (the bounds of the plugin config)', () => {
  it('accepts every limit at the config bounds and refuses one past them, naming the field', () => {
    expect(LimitOverrides.safeParse({ hopLimit: 50, keepFinished: 0, turnTimeoutMs: 10 }).success).toBe(true)
    const bad = LimitOverrides.safeParse({ hopLimit: 51 })
    expect(bad.success).toBe(false)
    expect(bad.error?.issues[0]?.path).toEqual(['hopLimit'])
    // the same bound the plugin config refuses
    expect(Config.safeParse({ team: { hopLimit: 51 } }).success).toBe(false)
    expect(LimitOverrides.safeParse({ hopLimit: 0 }).success).toBe(false)
    expect(LimitOverrides.safeParse({ turnTimeoutMs: 9 }).success).toBe(false)
  })

  it('refuses fractions, strings and unknown keys', () => {
    expect(LimitOverrides.safeParse({ workBudget: 2.5 }).success).toBe(false)
    expect(LimitOverrides.safeParse({ workBudget: '5' }).success).toBe(false)
    expect(LimitOverrides.safeParse({ hops: 5 }).success).toBe(false)
  })

  it('team state keeps `limits` through the incremental validator and a team without it stays valid', () => {
    const state = { ...emptyState(), limits: { hopLimit: 2, turnTimeoutMs: 5_000 } }
    const result = validateState(state, new KnownValid())
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.state.limits).toEqual({ hopLimit: 2, turnTimeoutMs: 5_000 })
    expect(validateState({ ...emptyState(), limits: { hopLimit: 99 } }, new KnownValid()).ok).toBe(false)
    expect(validateState(emptyState(), new KnownValid()).ok).toBe(true)
  })
})

describe('raisedLimits', () => {
  it('names every limit whose new value is bigger, and none that are equal or lower', () => {
    const next: Limits = { ...config, hopLimit: config.hopLimit + 1, sendsPerTurn: config.sendsPerTurn - 1, turnTimeoutMs: config.turnTimeoutMs + 1 }
    expect(raisedLimits(config, next)).toEqual(['hopLimit', 'turnTimeoutMs'])
    expect(raisedLimits(config, config)).toEqual([])
  })

  it('counts every limit except keepFinished (more history grants Bots nothing)', () => {
    const all = Object.fromEntries(LIMIT_KEYS.map((k) => [k, config[k] + 1])) as unknown as Limits
    expect(raisedLimits(config, all)).toEqual(LIMIT_KEYS.filter((k) => k !== 'keepFinished'))
  })
})
