// The client half's pure parts: which chat nodes are ours (by structured source only), the
// service's refusal split by field, the words in both languages, the hand-back to DSH's shadowed
// entry, and the shape check of a team answer.
import { describe, expect, it } from 'vitest'
import { fieldErrors } from '../../../src/client/field-errors.ts'
import { langOf, STRINGS, translator } from '../../../src/client/i18n.ts'
import { initials, nodeText, teamLine } from '../../../src/client/message-line.ts'
import { shadowedEntry } from '../../../src/client/slots.ts'
import { readTeamView } from '../../../src/client/team-client.ts'
import { bootstrapSource, deliverySource, roomNoticeSource, roomPostSource } from '../../../src/core/sources.ts'

describe('teamLine', () => {
  it("draws a relayed message as from its sender, by the source's fields", () => {
    const source = deliverySource({ id: 'd-1', from: 'bot-2', kind: 'message', replyMode: 'sender' }, 'Ada', { hop: 1 })
    expect(teamLine(source)).toEqual({ kind: 'relay', type: 'message', from: 'Ada', fromBot: 'bot-2', deliveryId: 'd-1' })
    expect(teamLine(deliverySource({ id: 'd-2', from: 'bot-2', kind: 'reply' }, 'Ada', { hop: 2 }))).toMatchObject({ kind: 'relay', type: 'reply' })
  })

  it('draws a room post from its post record, a notice quietly, and hides the bootstrap turn', () => {
    const post = roomPostSource({ groupId: 'g-1', groupName: 'Crew', postId: 'p-7', said: 'hi all', from: { id: 'bot-2', name: 'Ada' } }, { hop: 1 })
    expect(teamLine(post)).toEqual({ kind: 'post', from: 'Ada', fromBot: 'bot-2', group: 'Crew', groupId: 'g-1', postId: 'p-7', said: 'hi all' })
    expect(teamLine(roomNoticeSource({ groupId: 'g-1', groupName: 'Crew' }, 'Ada joined'))).toEqual({ kind: 'notice', group: 'Crew', text: 'Ada joined' })
    expect(teamLine(bootstrapSource('Ada'))).toEqual({ kind: 'hidden' })
  })

  it("leaves every other node to DSH: the person's messages, other plugins', malformed ones", () => {
    expect(teamLine({ kind: 'user' })).toBeUndefined()
    expect(teamLine({ kind: 'plugin', plugin: 'other', type: 'message', fromName: 'Ada' })).toBeUndefined()
    expect(teamLine({ kind: 'plugin', plugin: 'bot-team', form: 'relay', type: 'message' })).toBeUndefined() // no delivery id or sender
    expect(teamLine(undefined)).toBeUndefined()
    expect(teamLine('Message from Ada')).toBeUndefined()
  })

  it('reads text blocks only, bounded', () => {
    expect(nodeText([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }])).toBe('ab')
    expect(nodeText([{ type: 'text', text: 'x'.repeat(50) }], 10)).toBe('x'.repeat(10))
    expect(nodeText(42)).toBe('')
    expect(initials('Ada Lovelace')).toBe('AL')
    expect(initials('小明')).toBe('小')
  })
})

describe('fieldErrors', () => {
  const known = ['name', 'colour', 'role']
  it("puts each part of the service's message next to its field, word for word", () => {
    expect(fieldErrors('The Bot was not created: colour: must be a colour written #rrggbb, e.g. #1971c2', known)).toEqual({
      fields: { colour: 'must be a colour written #rrggbb, e.g. #1971c2' },
    })
    expect(fieldErrors('name: is required; role: at most 40 characters; avatar.shape: unknown', known)).toEqual({
      fields: { name: 'is required', role: 'at most 40 characters' },
      general: 'avatar.shape: unknown',
    })
  })
  it('shows a message that names no field above the form', () => {
    expect(fieldErrors('Pair this browser first', known)).toEqual({ fields: {}, general: 'Pair this browser first' })
  })
})

describe('i18n', () => {
  it("follows DSH's locale id, falling back to English", () => {
    expect(langOf('zh')).toBe('zh')
    expect(langOf('zh-CN')).toBe('zh')
    expect(langOf('fr')).toBe('en')
    expect(langOf(undefined)).toBe('en')
    expect(translator('zh')('messageFrom', { name: 'Ada' })).toBe('来自 Ada 的消息')
    expect(translator('en')('status.queued', { count: 3 })).toBe('3 queued')
  })
  it('has every English string in Chinese', () => {
    expect(Object.keys(STRINGS.zh).sort()).toEqual(Object.keys(STRINGS.en).sort())
  })
})

describe('shadowedEntry', () => {
  const ours = () => null
  const dsh = () => null
  const other = () => null
  const entries = [
    { component: ours, options: { key: 'user', priority: -1 } },
    { component: other, options: { key: 'context', priority: 0 } },
    { component: dsh, options: { key: 'user' } },
  ]
  it('finds the entry DSH would render for the key without ours', () => {
    expect(shadowedEntry(entries, (c) => c === ours, 'user')).toBe(dsh)
    expect(shadowedEntry(entries, (c) => c === ours, 'context')).toBe(other)
    expect(shadowedEntry(entries, (c) => c === ours, 'tool-call')).toBeUndefined()
    expect(shadowedEntry([null, 3, {}], () => false, 'user')).toBeUndefined()
  })
})

describe('readTeamView', () => {
  it('accepts a team view and refuses anything else', () => {
    const view = { mode: 'writer', revision: 1, bots: [{ id: 'bot-1', name: 'Main' }], groups: [], problems: [] }
    expect(readTeamView(view)).toBe(view)
    expect(readTeamView({ ...view, bots: [{ id: 1 }] })).toBeUndefined()
    expect(readTeamView({ error: 'down' })).toBeUndefined()
    expect(readTeamView(null)).toBeUndefined()
  })
})
