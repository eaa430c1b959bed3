import { describe, expect, it } from 'vitest'
import { STATE_VERSION, allocateId, emptyState, stateSchema } from '../../../src/store/schema.ts'
import { bot, sampleState } from './fixtures.ts'
import { stateAt } from '../../dsh/store/fixtures/state-gen.ts'

describe('state schema (current version)', () => {
  it('accepts the empty state and a populated team', () => {
    expect(stateSchema.safeParse(emptyState()).success).toBe(true)
    const parsed = stateSchema.parse(sampleState())
    expect(parsed.version).toBe(STATE_VERSION)
    expect(Object.keys(parsed.bots)).toEqual(['bot-1', 'bot-2'])
  })

  it("the crash writer's generated states are valid current states (its version is written out by hand)", () => {
    for (const revision of [1, 2, 50]) expect(stateSchema.safeParse(stateAt(revision)).success).toBe(true)
  })

  it('allows several Main Bots (features §1)', () => {
    const s = sampleState() as any
    s.bots['bot-2'].main = true
    expect(stateSchema.safeParse(s).success).toBe(true)
  })

  it('round-trips through JSON unchanged', () => {
    const s = sampleState()
    expect(stateSchema.parse(JSON.parse(JSON.stringify(s)))).toEqual(s)
  })

  it('keeps a limit override a newer build added, and still refuses a bad value of a known one', () => {
    const s = sampleState() as any
    s.limits = { hopLimit: 3, futureLimit: 7 }
    expect(stateSchema.parse(s).limits).toEqual({ hopLimit: 3, futureLimit: 7 })
    s.limits = { hopLimit: 0 }
    expect(stateSchema.safeParse(s).success).toBe(false)
  })

  const broken: Array<[string, (s: any) => void]> = [
    [
      'bot key differs from id',
      (s) => {
        s.bots['bot-9'] = bot('bot-1')
      },
    ],
    [
      'group member unknown',
      (s) => {
        s.groups['group-1'].members.push('bot-404')
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
      'windows absolute avatar path',
      (s) => {
        s.bots['bot-1'].avatar = { kind: 'image', image: 'C:\\pics\\a.png' }
      },
    ],
    [
      'avatar path escaping with ..',
      (s) => {
        s.bots['bot-1'].avatar = { kind: 'image', image: '../secrets.json' }
      },
    ],
    [
      'bad colour',
      (s) => {
        s.bots['bot-1'].colour = 'blue'
      },
    ],
    [
      'unknown delivery kind',
      (s) => {
        s.deliveries[0].kind = 'shout'
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
      'a newer version',
      (s) => {
        s.version = STATE_VERSION + 1
      },
    ],
    [
      'non-JSON preference',
      (s) => {
        s.preferences.fn = () => 1
      },
    ],
    [
      'timestamp not ISO',
      (s) => {
        s.bots['bot-1'].createdAt = 'yesterday'
      },
    ],
    [
      'bad counter kind',
      (s) => {
        s.nextIds['Bad Kind'] = 1
      },
    ],
  ]
  it.each(broken)('rejects: %s', (_name, mutate) => {
    const s = sampleState() as any
    mutate(s)
    expect(stateSchema.safeParse(s).success).toBe(false)
  })

  it('a deleted second Main Bot does not count', () => {
    const s = sampleState()
    s.bots['bot-2']!.main = true
    s.bots['bot-2']!.deleted = { at: '2025-01-02T00:00:00.000Z', by: 'user' }
    expect(stateSchema.safeParse(s).success).toBe(true)
  })

  it('allocateId never reuses ids, even after deletion', () => {
    const s = emptyState()
    expect(allocateId(s, 'bot')).toBe('bot-1')
    expect(allocateId(s, 'bot')).toBe('bot-2')
    expect(allocateId(s, 'group')).toBe('group-1')
    s.bots = {}
    expect(allocateId(s, 'bot')).toBe('bot-3')
    expect(s.nextIds).toEqual({ bot: 4, group: 2 })
    expect(() => allocateId(s, 'Bad')).toThrow()
  })
})
