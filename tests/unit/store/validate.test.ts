// Incremental validation gives stateSchema's verdict while parsing only what a transaction changed.
import { describe, expect, it } from 'vitest'
import { createDraft } from '../../../src/store/draft.ts'
import { stateSchema, type TeamState } from '../../../src/store/schema.ts'
import { KnownValid, validateState } from '../../../src/store/validate.ts'
import { bot, sampleState } from './fixtures.ts'

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v)) deepFreeze(x)
  }
  return v
}

/** A published state (validated whole, frozen, remembered) and the result of `tx` on its draft. */
function afterTransaction(tx: (s: any) => void) {
  const base = deepFreeze(stateSchema.parse(sampleState()))
  const known = new KnownValid()
  known.rememberAll(base)
  const { draft, finish } = createDraft(base)
  tx(draft)
  return { base, known, candidate: finish() as TeamState }
}

const mutations: Array<[string, (s: any) => void]> = [
  ['nothing', () => {}],
  [
    'rename a Bot',
    (s) => {
      s.bots['bot-2'].name = 'Ada'
    },
  ],
  [
    'add a Bot',
    (s) => {
      s.bots['bot-3'] = bot('bot-3')
    },
  ],
  [
    "a Bot with a newer build's field",
    (s) => {
      s.bots['bot-2'].mood = { level: 3 }
    },
  ],
  [
    'a delivery marked delivered',
    (s) => {
      Object.assign(s.deliveries[0], { status: 'delivered', updatedAt: '2025-01-02T00:00:00.000Z' })
    },
  ],
  [
    'bot key differs from id',
    (s) => {
      s.bots['bot-9'] = bot('bot-1')
    },
  ],
  [
    'a frozen group placed among the Bots',
    (s) => {
      s.bots['group-1'] = s.groups['group-1']
    },
  ],
  [
    'group member unknown',
    (s) => {
      s.groups['group-1'].members.push('bot-404')
    },
  ],
  [
    'group member named like an Object method',
    (s) => {
      s.groups['group-1'].members.push('constructor')
    },
  ],
  [
    'admin not a member',
    (s) => {
      s.groups['group-1'].admin = 'bot-404'
    },
  ],
  [
    'duplicate delivery id',
    (s) => {
      s.deliveries.push({ ...s.deliveries[0] })
    },
  ],
  [
    'absolute avatar path',
    (s) => {
      s.bots['bot-1'].avatar = { kind: 'image', image: '/home/me/pic.png' }
    },
  ],
  [
    'bad colour',
    (s) => {
      s.bots['bot-1'].colour = 'blue'
    },
  ],
  [
    'negative hop',
    (s) => {
      s.deliveries[0].hop = -1
    },
  ],
  [
    'revision as string',
    (s) => {
      s.revision = '7'
    },
  ],
  [
    'non-JSON preference',
    (s) => {
      s.preferences.fn = () => 1
    },
  ],
  [
    'non-JSON unknown top-level field',
    (s) => {
      s.later = new Date()
    },
  ],
  [
    'non-JSON unknown Bot field',
    (s) => {
      s.bots['bot-1'].later = () => 1
    },
  ],
  [
    'bots as an array',
    (s) => {
      s.bots = []
    },
  ],
  [
    'deliveries as an object',
    (s) => {
      s.deliveries = {}
    },
  ],
  [
    'an empty bot key',
    (s) => {
      s.bots[''] = bot('')
    },
  ],
  [
    'a question without an id',
    (s) => {
      delete (s.ledgerImport![0] as { id?: string }).id
    },
  ],
  [
    'bad counter kind',
    (s) => {
      s.nextIds['Bad Kind'] = 1
    },
  ],
]

describe('validateState', () => {
  it.each(mutations)('gives the same verdict as stateSchema: %s', (_name, tx) => {
    const { known, candidate } = afterTransaction(tx)
    const full = stateSchema.safeParse(candidate)
    const incremental = validateState(candidate, known)
    expect(incremental.ok).toBe(full.success)
    if (incremental.ok && full.success) expect(JSON.parse(JSON.stringify(incremental.state))).toEqual(JSON.parse(JSON.stringify(full.data)))
    if (!incremental.ok) expect(incremental.problem.length).toBeGreaterThan(0)
  })

  it('keeps unchanged entities and containers by identity and returns only changed ones as fresh', () => {
    const { base, known, candidate } = afterTransaction((s) => {
      s.bots['bot-2'].name = 'Ada'
    })
    const r = validateState(candidate, known)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.state.bots['bot-1']).toBe(base.bots['bot-1'])
    expect(r.state.groups).toBe(base.groups)
    expect(r.state.deliveries).toBe(base.deliveries)
    expect(r.fresh).toHaveLength(1)
    expect(r.fresh[0]![0]).toBe('bots')
    expect(r.fresh[0]![1]).toMatchObject({ id: 'bot-2', name: 'Ada' })
  })

  it('does not trust a frozen entity it has not seen pass', () => {
    const base = deepFreeze(stateSchema.parse(sampleState()))
    const known = new KnownValid() // nothing remembered
    const broken = deepFreeze({ ...sampleState(), bots: { 'bot-1': { ...bot('bot-1'), colour: 'blue' }, 'bot-2': bot('bot-2') } })
    expect(validateState(broken, known)).toMatchObject({ ok: false, problem: expect.stringMatching(/bots\.bot-1\.colour/) })
    expect(validateState({ ...base }, known).ok).toBe(true)
  })

  it('names the failing paths like stateSchema does', () => {
    const { known, candidate } = afterTransaction((s) => {
      s.bots['bot-1'].colour = 'blue'
      s.groups['group-1'].admin = 'nobody'
    })
    const r = validateState(candidate, known)
    expect(r).toMatchObject({ ok: false, problem: expect.stringMatching(/bots\.bot-1\.colour/) })
  })
})
