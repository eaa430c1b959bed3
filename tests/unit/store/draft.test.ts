// The copy-on-write draft a transaction works on: it must behave like a deep copy of the state
// (same results as mutating a structuredClone) while leaving every unwritten object the very same
// frozen object, which is what lets the store skip validating and re-serialising it.
import { describe, expect, it } from 'vitest'
import { createDraft, isDraft } from '../../../src/store/draft.ts'
import type { TeamState } from '../../../src/store/schema.ts'
import { bot, sampleState } from './fixtures.ts'

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v)) deepFreeze(x)
  }
  return v
}
const frozenState = () => deepFreeze(sampleState())

/** Run `tx` on a draft and on a plain deep copy; both must end with the same data. */
// biome-ignore lint/suspicious/noConfusingVoidType: transactions mutate the draft and may return nothing.
function both(tx: (s: TeamState) => TeamState | void) {
  const base = frozenState()
  const before = JSON.stringify(base)
  const { draft, finish } = createDraft(base)
  const out = finish(tx(draft)) as TeamState
  const plain = structuredClone(sampleState())
  const expected = tx(plain) ?? plain
  expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse(JSON.stringify(expected)))
  expect(JSON.stringify(base)).toBe(before) // the base is never modified
  return { base, out }
}

describe('copy-on-write draft', () => {
  it('a transaction that writes nothing yields the base itself', () => {
    const base = frozenState()
    const { draft, finish } = createDraft(base)
    expect(Object.keys(draft.bots)).toEqual(['bot-1', 'bot-2'])
    expect(draft.bots['bot-1']!.sessionParts[0]!.part).toBe(1)
    expect(finish()).toBe(base)
  })

  it('writing one Bot copies that Bot and the bots record only; everything else keeps its identity', () => {
    const { base, out } = both((s) => {
      s.bots['bot-2']!.name = 'Renamed'
    })
    expect(out).not.toBe(base)
    expect(out.bots).not.toBe(base.bots)
    expect(out.bots['bot-2']).not.toBe(base.bots['bot-2'])
    expect(out.bots['bot-2']!.name).toBe('Renamed')
    expect(out.bots['bot-2']!.sessionParts).toBe(base.bots['bot-2']!.sessionParts)
    expect(out.bots['bot-1']).toBe(base.bots['bot-1'])
    expect(out.groups).toBe(base.groups)
    expect(out.deliveries).toBe(base.deliveries)
    expect(isDraft(out.bots)).toBe(false)
  })

  it('writing a value equal to the old one leaves the object unchanged', () => {
    const { base, out } = both((s) => {
      s.bots['bot-1']!.name = 'Bot bot-1'
    })
    expect(out).toBe(base)
  })

  // biome-ignore lint/suspicious/noConfusingVoidType: as above.
  const cases: Array<[string, (s: TeamState) => TeamState | void]> = [
    [
      'nested push',
      (s) => {
        s.bots['bot-1']!.sessionParts.push({ sessionId: 's-2', part: 2, startedAt: '2025-01-02T00:00:00.000Z' })
      },
    ],
    [
      'add and delete Bots',
      (s) => {
        s.bots['bot-3'] = bot('bot-3')
        delete s.bots['bot-2']
        s.groups['group-1']!.members = ['bot-1']
      },
    ],
    [
      'Object.assign on an array element found by iteration',
      (s) => {
        for (const d of s.deliveries) if (d.status === 'pending') Object.assign(d, { status: 'delivered', outcome: 'ok' })
      },
    ],
    [
      'filter and reassign an array',
      (s) => {
        s.deliveries.push({ ...s.deliveries[0]!, id: 'delivery-2' })
        s.deliveries = s.deliveries.filter((d) => d.id !== 'delivery-1')
      },
    ],
    [
      'splice, unshift, sort, reverse',
      (s) => {
        s.deliveries.push({ ...s.deliveries[0]!, id: 'delivery-3' }, { ...s.deliveries[0]!, id: 'delivery-2' })
        s.deliveries.splice(0, 1)
        s.deliveries.unshift({ ...s.deliveries[0]!, id: 'delivery-9' })
        s.deliveries.sort((a, b) => a.id.localeCompare(b.id))
        s.deliveries.reverse()
        s.deliveries[1]!.body = 'moved then changed'
      },
    ],
    [
      'length truncation',
      (s) => {
        s.ledgerImport!.length = 0
      },
    ],
    [
      'spread of a draft into a new object',
      (s) => {
        s.bots['bot-2'] = { ...s.bots['bot-2']!, pinned: true }
      },
    ],
    [
      'a new object holding drafts',
      (s) => {
        s.preferences = { copy: s.preferences.nested! }
      },
    ],
    ['returning a new state built from the draft', (s) => ({ ...s, bots: { 'bot-1': s.bots['bot-1']! }, groups: {} })],
    [
      'in, keys, entries and JSON of drafts',
      (s) => {
        s.preferences.seen = [
          String('bot-1' in s.bots),
          Object.keys(s.groups).join(),
          Object.entries(s.nextIds).length,
          JSON.stringify(s.bots['bot-1']!.avatar),
        ]
      },
    ],
  ]
  it.each(cases)('behaves like a deep copy: %s', (_name, tx) => {
    const { out } = both(tx)
    expect(JSON.stringify(out)).not.toContain('undefined')
  })

  it('a draft answers Array.isArray and keeps unknown fields', () => {
    const base = deepFreeze({ ...sampleState(), future: { x: 1 } }) as TeamState
    const { draft, finish } = createDraft(base)
    expect(Array.isArray(draft.deliveries)).toBe(true)
    draft.revision = 8
    expect((finish() as any).future).toBe((base as any).future)
  })

  it('writing through a draft after its transaction ended throws, and the result is unaffected', () => {
    const base = frozenState()
    const { draft, finish } = createDraft(base)
    const kept = draft.bots['bot-1']!
    draft.preferences.theme = 'light'
    const out = finish() as TeamState
    expect(() => {
      kept.name = 'late'
    }).toThrow(/finished transaction/)
    expect(() => {
      draft.preferences.theme = 'late'
    }).toThrow(/finished transaction/)
    expect(out.bots['bot-1']!.name).toBe('Bot bot-1')
    expect(out.preferences.theme).toBe('light')
  })
})
