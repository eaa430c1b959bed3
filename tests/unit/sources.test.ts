// Message sources: one format, builders and one reader for everything the plugin writes.
import { describe, expect, it } from 'vitest'
import {
  bootstrapSource,
  chainOf,
  deliverySource,
  handoffSource,
  readSource,
  readSourceOf,
  roomNoticeSource,
  roomOpenSource,
  roomPostSource,
  roomReportSource,
  roomTurnSource,
  SOURCE_PLUGIN,
  type TeamSource,
} from '../../src/core/sources.ts'

const group = { groupId: 'group-1', groupName: 'Crew' }
const chains = [{ hop: 0 }, { hop: 3, budget: 'budget-7' }, { hop: 2, budget: 'budget-1', mode: 'read-only' as const }]

/** One of every source the plugin writes, with and without each optional field. */
function everySource(): TeamSource[] {
  const out: TeamSource[] = []
  for (const chain of chains) {
    for (const kind of ['message', 'interrupt', 'stop', 'reply'] as const) {
      for (const replyMode of ['sender', 'user', undefined] as const)
        out.push(deliverySource({ id: 'delivery-9', from: 'bot-2', kind, replyMode }, 'Ada', chain))
    }
    for (const from of [undefined, { id: 'bot-2', name: 'Ada' }]) {
      for (const report of [undefined, false, true]) out.push(roomPostSource({ ...group, postId: 'post-1', said: 'hello', from, report }, chain))
    }
    out.push(roomTurnSource(group, chain), roomReportSource(group, chain))
  }
  out.push(roomNoticeSource(group, 'Ada read\nher own chat'), roomOpenSource(group), bootstrapSource('Ada'), handoffSource(2, false), handoffSource(7, true))
  return out
}

describe('message sources', () => {
  it('every source the plugin writes is JSON-only (no undefined value anywhere: DSH followup throws on one) and reads back equal', () => {
    const all = everySource()
    expect(new Set(all.map((s) => s.type))).toEqual(
      new Set(['message', 'interrupt', 'stop', 'reply', 'room-post', 'room-turn', 'room-report', 'room-notice', 'room-open', 'bootstrap', 'handoff']),
    )
    for (const s of all) {
      expect(JSON.parse(JSON.stringify(s))).toEqual(s)
      expect(Object.values(s)).not.toContain(undefined)
      expect(s.kind).toBe('plugin')
      expect(s.plugin).toBe(SOURCE_PLUGIN)
      expect(readSource(s)).toEqual(s)
      expect(readSource(JSON.parse(JSON.stringify(s)))).toEqual(s)
    }
  })

  it('optional fields appear only when set: replyTo on messages, report only with a posting Bot, budget and mode only when given', () => {
    expect('replyTo' in deliverySource({ id: 'd', from: 'b', kind: 'interrupt', replyMode: 'sender' }, 'A', { hop: 1 })).toBe(false)
    expect(deliverySource({ id: 'd', from: 'b', kind: 'message', replyMode: 'user' }, 'A', { hop: 1 }).replyTo).toBe('user')
    expect('report' in roomPostSource({ ...group, postId: 'p', said: 'x', report: true }, { hop: 0 })).toBe(false)
    expect(roomPostSource({ ...group, postId: 'p', said: 'x', from: { id: 'bot-1', name: 'A' }, report: true }, { hop: 0 }).report).toBe(true)
    expect(Object.keys(roomTurnSource(group, { hop: 1 })).sort()).toEqual(['form', 'groupId', 'groupName', 'hop', 'kind', 'plugin', 'type'])
  })

  it('notices carry a one-line summary within DSH bound of 120 characters', () => {
    expect(roomNoticeSource(group, 'a\n\nb').summary).toBe('a b')
    expect([...roomNoticeSource(group, 'x'.repeat(500)).summary].length).toBe(120)
  })

  it('reads nothing that is not ours or is malformed', () => {
    expect(readSource(undefined)).toBeUndefined()
    expect(readSource(null)).toBeUndefined()
    expect(readSource('bot-team')).toBeUndefined()
    expect(readSource({ kind: 'user' })).toBeUndefined()
    expect(
      readSource({ kind: 'plugin', plugin: 'other', form: 'relay', type: 'message', deliveryId: 'x', fromBot: 'b', fromName: 'B', hop: 1 }),
    ).toBeUndefined()
    expect(readSource({ kind: 'plugin', plugin: SOURCE_PLUGIN, form: 'relay', type: 'message', deliveryId: 'x' })).toBeUndefined()
    expect(
      readSource({ kind: 'plugin', plugin: SOURCE_PLUGIN, form: 'relay', type: 'message', deliveryId: 'x', fromBot: 'b', fromName: 'B', hop: -1 }),
    ).toBeUndefined()
    expect(readSource({ kind: 'plugin', plugin: SOURCE_PLUGIN, form: 'relay', type: 'room-dance', groupId: 'g', groupName: 'G', hop: 0 })).toBeUndefined()
    expect(
      readSource({ kind: 'plugin', plugin: SOURCE_PLUGIN, form: 'relay', type: 'room-turn', groupId: 'g', groupName: 'G', hop: 0, mode: 'root' }),
    ).toBeUndefined()
  })

  it('reads sources written before consolidation (type in `delivery`, poster in `fromId`, the old bootstrap plugin id)', () => {
    expect(
      readSource({
        kind: 'plugin',
        plugin: 'bot-team',
        form: 'relay',
        deliveryId: 'delivery-3',
        fromBot: 'bot-1',
        fromName: 'Main',
        hop: 2,
        delivery: 'message',
        replyTo: 'sender',
      }),
    ).toEqual(deliverySource({ id: 'delivery-3', from: 'bot-1', kind: 'message', replyMode: 'sender' }, 'Main', { hop: 2 }))
    const post = readSource({
      kind: 'plugin',
      plugin: 'bot-team',
      form: 'relay',
      delivery: 'room-post',
      groupId: 'group-1',
      groupName: 'Crew',
      postId: 'post-9',
      said: 'hi',
      fromId: 'bot-2',
      fromName: 'Ada',
      report: true,
    })
    expect(post).toMatchObject({ type: 'room-post', postId: 'post-9', said: 'hi', fromBot: 'bot-2', fromName: 'Ada', report: true, hop: 0 })
    expect(readSource({ kind: 'plugin', plugin: 'bot-team', form: 'relay', delivery: 'room-turn', groupId: 'group-1', groupName: 'Crew' })?.type).toBe(
      'room-turn',
    )
    expect(readSource({ kind: 'plugin', plugin: 'bot-team', form: 'relay', delivery: 'room-report', groupName: 'Crew' })?.type).toBe('room-report')
    expect(readSource({ kind: 'plugin', plugin: 'bot-team', form: 'relay', delivery: 'room-notice', groupId: 'group-1', groupName: 'Crew' })?.type).toBe(
      'room-notice',
    )
    expect(readSource({ kind: 'plugin', plugin: 'bot-team', form: 'relay', delivery: 'room-open', groupId: 'group-1', groupName: 'Crew' })?.type).toBe(
      'room-open',
    )
    expect(readSource({ kind: 'plugin', plugin: 'bot-team-bootstrap' })?.type).toBe('bootstrap')
  })

  it('readSourceOf narrows to the asked types; chainOf gives hop, budget and mode of Bot-started sources only', () => {
    const s = deliverySource({ id: 'd', from: 'b', kind: 'reply' }, 'A', { hop: 4, budget: 'budget-2', mode: 'workspace-write' })
    expect(readSourceOf(s, 'message', 'reply')?.deliveryId).toBe('d')
    expect(readSourceOf(s, 'room-post')).toBeUndefined()
    expect(chainOf(readSource(s))).toEqual({ hop: 4, budget: 'budget-2', mode: 'workspace-write' })
    expect(chainOf(readSource(roomNoticeSource(group, 'x')))).toBeUndefined()
    expect(chainOf(undefined)).toBeUndefined()
  })
})
