// The room's own lines inside its answer (the opening, a round held until the team resumes, a
// round cut at its turn limit): recorded as notes beside the answer's rounds on DSH's assistant
// message, read back from the message's source, and drawn as quiet lines in their place — from
// these records only, never from the answer's rendered text.
import { BlockAssembler } from '@deepseek-ai/dsh-llm'
import { describe, expect, it } from 'vitest'
import { roomItems } from '../../../src/client/room-view.ts'
import { TextBlock } from '../../../src/dsh/answer-block.ts'
import { readRoomAnswerParts, roomAnswerState, ROOM_NOTE_MAX, ROOM_NOTES_MAX } from '../../../src/core/sources.ts'

const turns = [
  {
    round: 'post-u',
    turns: [
      { botId: 'b-ada', outcome: 'posted', post: 1 },
      { botId: 'b-bo', outcome: 'pass' },
    ],
  },
]
const posts = [
  { id: 'post-u', seq: 0, round: 'post-u', from: 'user', name: 'User', text: 'hello crew' },
  { id: 'post-a', seq: 1, round: 'post-u', from: 'b-ada', name: 'Ada', text: 'Hi!' },
]

describe('room notes on the assistant message', () => {
  it("survive DSH's BlockAssembler beside the rounds and read back; the rounds reader is unchanged", () => {
    const block = new TextBlock()
    const assembler = new BlockAssembler()
    for (const chunk of block.delta('_Held: paused. The round starts when the team resumes._\n\n')) assembler.push(chunk)
    const notes = [{ kind: 'held' as const, text: 'Held: paused. The round starts when the team resumes.', round: 'post-u' }]
    for (const chunk of block.end('', roomAnswerState(['post-u'], notes))) assembler.push(chunk)
    const source = { kind: 'model', provider: 'p', model: 'm', replayState: assembler.replayState }
    expect(readRoomAnswerParts(source)).toEqual({ rounds: ['post-u'], notes })
    expect(readRoomAnswerParts(source)?.rounds).toEqual(['post-u'])
  })

  it('are bounded in number and length, one line each; a malformed note makes the state unreadable', () => {
    const many = Array.from({ length: ROOM_NOTES_MAX + 3 }, () => ({ kind: 'open' as const, text: `a\n${'x'.repeat(ROOM_NOTE_MAX)}` }))
    const parts = readRoomAnswerParts({ kind: 'model', replayState: roomAnswerState([], many) })!
    expect(parts.notes).toHaveLength(ROOM_NOTES_MAX)
    expect(parts.notes[0]!.text).toHaveLength(ROOM_NOTE_MAX)
    expect(parts.notes[0]!.text.startsWith('a x')).toBe(true)
    expect(
      readRoomAnswerParts({
        kind: 'model',
        replayState: { response: { botTeam: { type: 'room-answer', rounds: [], notes: [{ kind: 'shout', text: 'x' }] } } },
      }),
    ).toBeUndefined()
    // An answer written before notes existed reads as no notes.
    expect(readRoomAnswerParts({ kind: 'model', replayState: roomAnswerState(['p']) })).toEqual({ rounds: ['p'], notes: [] })
  })
})

describe("roomItems with the room's notes", () => {
  it('draws the opening line of an answer with no member turn as a quiet note', () => {
    expect(roomItems({ rounds: [], posts: [], turns: [], notes: [{ kind: 'open', text: 'Group Crew is open: Ada, Bo; no admin; admin mode.' }] })).toEqual([
      { kind: 'note', id: 'note:0', text: 'Group Crew is open: Ada, Bo; no admin; admin mode.' },
    ])
  })

  it("puts a held line before its round's turns and a turn-limit line after them", () => {
    const notes = [
      { kind: 'turn-cap', text: 'This round reached its limit of 2 turns.', round: 'post-u' },
      { kind: 'held', text: 'Held: paused.', round: 'post-u' },
    ]
    expect(roomItems({ rounds: ['post-u'], posts, turns, notes }, (id) => (id === 'b-bo' ? 'Bo' : undefined))).toEqual([
      { kind: 'note', id: 'note:1', text: 'Held: paused.' },
      { kind: 'post', id: 'post-a', from: 'b-ada', name: 'Ada', text: 'Hi!' },
      { kind: 'quiet', id: 'post-u:1', key: 'room.passed', name: 'Bo' },
      { kind: 'note', id: 'note:0', text: 'This round reached its limit of 2 turns.' },
    ])
  })

  it("draws nothing for an answer that only echoes a notice (the notice's own message shows it)", () => {
    expect(roomItems({ rounds: [], posts: [], turns: [], notes: [{ kind: 'notice', text: 'Ada read its own chat' }] })).toEqual([])
  })

  it('leaves an answer with neither turns nor notes to DSH, and skips malformed notes', () => {
    expect(roomItems({ rounds: [], posts: [], turns: [] })).toBeUndefined()
    expect(roomItems({ rounds: [], posts: [], turns: [], notes: [{ kind: 'open' }, { text: 'x' }, 'x', null] })).toBeUndefined()
    expect(roomItems({ rounds: ['post-u'], posts, turns, notes: 'Held' })).toHaveLength(2)
  })
})
