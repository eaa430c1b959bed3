// The layout of state.json: JSON that parses back to exactly the state, one entity per line, and
// a text cache that is reused only for frozen (unchangeable) objects.
import { describe, expect, it } from 'vitest'
import { serializeState } from '../../../src/store/save.ts'
import { bot, sampleState } from './fixtures.ts'

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v)) deepFreeze(x)
  }
  return v
}

describe('serializeState', () => {
  it('parses back to exactly the state, unknown fields included', () => {
    const s = { ...sampleState(), later: { kept: [1, 'two'] } }
    s.bots['bot-1'] = { ...s.bots['bot-1']!, mood: 'calm' } as any
    expect(JSON.parse(serializeState(s))).toEqual(s)
    expect(serializeState(s).endsWith('}\n')).toBe(true)
  })

  it('writes one line per top-level field and per Bot, group, delivery and question', () => {
    const s = sampleState()
    const lines = serializeState(s).split('\n')
    for (const id of ['bot-1', 'bot-2']) expect(lines.filter((l) => l.startsWith(`    "${id}": {"id":"${id}"`))).toHaveLength(1)
    expect(lines.filter((l) => l.startsWith('    {"id":"delivery-1"'))).toHaveLength(1)
    expect(lines.filter((l) => l.startsWith('    {"id":"question-1"'))).toHaveLength(1)
    expect(lines.filter((l) => l.startsWith('  "revision": 7'))).toHaveLength(1)
    expect(lines.filter((l) => l.startsWith('  "preferences": {"theme":"dark"'))).toHaveLength(1)
  })

  it('empty containers are written compactly and still parse', () => {
    const s = { ...sampleState(), bots: {}, groups: {}, deliveries: [], ledgerImport: [] }
    expect(JSON.parse(serializeState(s))).toEqual(s)
  })

  it('with a cache, the same frozen state gives the same text, and a changed state its own', () => {
    const cache = new WeakMap<object, string>()
    const a = deepFreeze(sampleState())
    const first = serializeState(a, cache)
    expect(serializeState(a, cache)).toBe(first)
    const b = deepFreeze({ ...a, bots: { ...a.bots, 'bot-3': bot('bot-3') } })
    expect(JSON.parse(serializeState(b, cache))).toEqual(b)
  })

  it('never caches an object that can still change', () => {
    const cache = new WeakMap<object, string>()
    const s = sampleState()
    serializeState(s, cache)
    s.bots['bot-1']!.name = 'Changed'
    s.deliveries.push({ ...s.deliveries[0]!, id: 'delivery-2' })
    expect(JSON.parse(serializeState(s, cache))).toEqual(s)
  })
})
