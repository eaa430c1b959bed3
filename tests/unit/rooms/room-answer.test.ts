// The rounds a room answer ran, carried on DSH's assistant message: the room's `finish` chunk
// names them, DSH's own BlockAssembler passes them through into the message's model source, and
// `readRoomAnswerParts` reads them back (and nothing else); plus the progress line's data.
import { BlockAssembler } from '@deepseek-ai/dsh-llm'
import { describe, expect, it } from 'vitest'
import { roundProgress } from '../../../src/rooms/progress.ts'
import type { RoundRecord } from '../../../src/rooms/rounds.ts'
import { TextBlock } from '../../../src/dsh/answer-block.ts'
import { readRoomAnswerParts, roomAnswerState, ROOM_ANSWER_ROUNDS_MAX } from '../../../src/core/sources.ts'

describe('room answer rounds on the assistant message', () => {
  it("survive DSH's BlockAssembler into the model source and read back", () => {
    const block = new TextBlock()
    const assembler = new BlockAssembler()
    for (const chunk of block.delta('**Ada**: hi\n\n')) assembler.push(chunk)
    for (const chunk of block.end('', roomAnswerState(['post-1', 'post-2']))) assembler.push(chunk)
    const source = { kind: 'model', provider: 'deepseek-official', model: 'm', replayState: assembler.replayState }
    expect(readRoomAnswerParts(source)?.rounds).toEqual(['post-1', 'post-2'])
    expect(assembler.blocks()).toEqual([{ type: 'text', text: '**Ada**: hi\n\n' }])
  })

  it('reads nothing from a plain model message, a user message or a malformed state', () => {
    expect(readRoomAnswerParts({ kind: 'model', provider: 'p', model: 'm' })?.rounds).toBeUndefined()
    expect(readRoomAnswerParts({ kind: 'model', provider: 'p', model: 'm', replayState: { response: { id: 'x' } } })?.rounds).toBeUndefined()
    expect(readRoomAnswerParts({ kind: 'user', replayState: roomAnswerState(['p']) })?.rounds).toBeUndefined()
    expect(readRoomAnswerParts({ kind: 'model', replayState: { response: { botTeam: { type: 'room-answer', rounds: [''] } } } })?.rounds).toBeUndefined()
    expect(readRoomAnswerParts(null)?.rounds).toBeUndefined()
  })

  it('names at most ROOM_ANSWER_ROUNDS_MAX rounds', () => {
    const many = Array.from({ length: ROOM_ANSWER_ROUNDS_MAX + 5 }, (_, i) => `p${i}`)
    expect(readRoomAnswerParts({ kind: 'model', replayState: roomAnswerState(many) })?.rounds).toHaveLength(ROOM_ANSWER_ROUNDS_MAX)
  })
})

describe('roundProgress', () => {
  const record = (extra: Partial<RoundRecord> = {}): RoundRecord => ({
    groupId: 'g1',
    postId: 'post-1',
    startedBy: 'user',
    first: ['a', 'b', 'c', 'd'],
    dropped: [],
    maxTurns: 8,
    turns: [
      { botId: 'a', outcome: 'posted' },
      { botId: 'b', outcome: 'pass' },
      { botId: 'c', outcome: 'missed' },
    ],
    ...extra,
  })
  const name = (id: string) => ({ a: 'Ada', b: 'Bo', c: 'Cy', d: 'Di' })[id] ?? id

  it('says who speaks now and who posted, passed and missed', () => {
    expect(roundProgress(record(), name, 'd')).toEqual({
      groupId: 'g1',
      round: 'post-1',
      speaking: 'Di',
      posted: ['Ada'],
      passed: ['Bo'],
      missed: ['Cy'],
      failed: [],
      done: false,
    })
  })

  it('has no speaker once the round ended', () => {
    const p = roundProgress(record({ endedAt: '2026-01-01T00:00:00.000Z' }), name, 'd')
    expect(p.speaking).toBeUndefined()
    expect(p.done).toBe(true)
  })
})
