import { type Bot, type TeamState, emptyState } from '../../../src/store/schema.ts'

export function bot(id: string, extra: Partial<Bot> = {}): Bot {
  return {
    id,
    name: `Bot ${id}`,
    role: 'Helper',
    instructions: 'Be useful.',
    avatar: { kind: 'shape', shape: 'circle' },
    colour: '#3366ff',
    permissionPreset: 'default',
    pinned: false,
    hidden: false,
    createdBy: 'user',
    createdAt: '2025-01-01T00:00:00.000Z',
    main: false,
    acceptsDelegatedWork: false,
    sessionParts: [{ sessionId: `s-${id}`, part: 1, startedAt: '2025-01-01T00:00:00.000Z' }],
    ...extra,
  }
}

export function sampleState(): TeamState {
  const s = emptyState('1.2.3', new Date('2025-01-01T00:00:00.000Z'))
  s.revision = 7
  s.bots = { 'bot-1': bot('bot-1', { main: true }), 'bot-2': bot('bot-2') }
  s.groups = {
    'group-1': {
      id: 'group-1',
      name: 'Crew',
      members: ['bot-1', 'bot-2'],
      admin: 'bot-1',
      mode: 'admin',
      notice: '',
      memberSessions: { 'bot-2': 's-g1-bot-2' },
      createdAt: '2025-01-01T00:00:00.000Z',
    },
  }
  s.deliveries = [
    {
      id: 'delivery-1',
      from: 'bot-1',
      to: 'bot-2',
      kind: 'message',
      body: 'hi',
      hop: 0,
      replyTo: null,
      createdAt: '2025-01-01T00:00:00.000Z',
      status: 'pending',
    },
  ]
  s.preferences = { theme: 'dark', nested: { a: [1, 2] } }
  s.ledgerImport = [{ id: 'question-1', botId: 'bot-1', question: 'Which?', askedAt: '2025-01-01T00:00:00.000Z', status: 'open' }]
  s.nextIds = { bot: 3, group: 2, delivery: 2, question: 2 }
  return s
}
