// The room's stream adapter (pure parts): what a room request holds since the room last answered,
// with stable post ids and the chain each post carries; the chunk grammar of one text block.
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { describe, expect, it } from 'vitest'
import { roomNoticeSource, roomPostSource } from '../../../src/core/sources.ts'
import { readRoomRequest } from '../../../src/rooms/stream.ts'
import { TextBlock } from '../../../src/dsh/answer-block.ts'

const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] })

describe('readRoomRequest', () => {
  it("reads only what came after the last answer: user text by DSH message id, a Bot's post by its post id and chain, notices", () => {
    const typed = createUserMessage({ content: [{ type: 'text', text: ' hello ' }], source: { kind: 'user' } })
    const posted = createUserMessage({
      content: [{ type: 'text', text: 'Ada: @Bob review' }],
      source: roomPostSource(
        { groupId: 'group-1', groupName: 'G', postId: 'post-7', said: '@Bob review', from: { id: 'bot-1', name: 'Ada' }, report: true },
        { hop: 2, budget: 'b-1', mode: 'read-only' },
      ),
    })
    const noticed = createUserMessage({
      content: [{ type: 'text', text: 'Ada read her chat' }],
      source: roomNoticeSource({ groupId: 'group-1', groupName: 'G' }, 'Ada read her chat'),
    })
    const old = createUserMessage({ content: [{ type: 'text', text: 'answered already' }], source: { kind: 'user' } })
    const inputs = readRoomRequest([old, assistant('**Bob:** done'), typed, posted, noticed] as never)
    expect(inputs).toEqual([
      { kind: 'post', postId: `msg-${String(typed.id)}`, poster: { kind: 'user' }, name: 'User', text: 'hello', chain: { hop: 0 } },
      {
        kind: 'post',
        postId: 'post-7',
        poster: { kind: 'bot', botId: 'bot-1' },
        name: 'Ada',
        text: '@Bob review',
        chain: { hop: 2, budget: 'b-1', mode: 'read-only' },
        report: true,
      },
      { kind: 'notice', text: 'Ada read her chat' },
    ])
  })
})

describe('TextBlock', () => {
  it('one block-start, the deltas, one block-end with the whole text, usage once, one finish', () => {
    const b = new TextBlock()
    const chunks = [...b.delta('a'), ...b.delta('b'), ...b.end('unused')]
    expect(chunks.map((c) => c.type)).toEqual(['block-start', 'text-delta', 'text-delta', 'block-end', 'usage', 'finish'])
    expect(chunks[3]).toMatchObject({ block: { type: 'text', text: 'ab' } })
    expect([...new TextBlock().end('fallback')].map((c) => c.type)).toEqual(['block-start', 'text-delta', 'block-end', 'usage', 'finish'])
  })
})
