// The room view's pure parts: one room answer (the route's posts and turns for the rounds DSH
// keeps with the message) becomes one item per member post and a quiet line per turn without a
// post; the live `room` event is shape-checked and worded as the progress line.
import { describe, expect, it } from 'vitest'
import { translator } from '../../../src/client/i18n.ts'
import { livePosts, progressText, readProgress, roomItems } from '../../../src/client/room-view.ts'

const answer = {
  rounds: ['post-u'],
  posts: [
    { id: 'post-u', seq: 0, round: 'post-u', from: 'user', name: 'User', text: 'hello crew' },
    { id: 'post-a', seq: 1, round: 'post-u', from: 'b-ada', name: 'Ada', text: 'Hi!\n**Bo**: I agree with Ada' },
    { id: 'post-c', seq: 2, round: 'post-u', from: 'b-cy', name: 'Cy', text: 'Tea it is.' },
  ],
  turns: [
    {
      round: 'post-u',
      turns: [
        { botId: 'b-ada', outcome: 'posted', post: 1 },
        { botId: 'b-bo', outcome: 'pass' },
        { botId: 'b-di', outcome: 'missed' },
        { botId: 'b-cy', outcome: 'posted', post: 2 },
      ],
    },
  ],
}

describe('roomItems', () => {
  it('draws one item per member post in turn order, quiet lines for a pass and a miss, not the opening post', () => {
    expect(roomItems(answer, (id) => ({ 'b-bo': 'Bo', 'b-di': 'Di' })[id])).toEqual([
      { kind: 'post', id: 'post-a', from: 'b-ada', name: 'Ada', text: 'Hi!\n**Bo**: I agree with Ada' },
      { kind: 'quiet', id: 'post-u:1', key: 'room.passed', name: 'Bo' },
      { kind: 'quiet', id: 'post-u:2', key: 'room.missed', name: 'Di' },
      { kind: 'post', id: 'post-c', from: 'b-cy', name: 'Cy', text: 'Tea it is.' },
    ])
  })

  it("keeps a name written inside a reply as that reply's text (no split on rendered names)", () => {
    const items = roomItems(answer) ?? []
    expect(items.filter((i) => i.kind === 'post').map((i) => i.kind === 'post' && i.name)).toEqual(['Ada', 'Cy'])
  })

  it("is undefined for a malformed answer or one with no member turn (the room's own text)", () => {
    expect(roomItems(null)).toBeUndefined()
    expect(roomItems({ posts: 'x', turns: [] })).toBeUndefined()
    expect(roomItems({ rounds: ['p'], posts: [], turns: [{ round: 'p', turns: [] }] })).toBeUndefined()
  })

  it('skips a posted turn whose post is not in the answer or belongs to another round', () => {
    const items = roomItems({
      posts: [{ id: 'x', seq: 5, round: 'other', from: 'b', name: 'B', text: 't' }],
      turns: [
        {
          round: 'post-u',
          turns: [
            { botId: 'b', outcome: 'posted', post: 5 },
            { botId: 'b', outcome: 'posted', post: 9 },
          ],
        },
      ],
    })
    expect(items).toEqual([])
  })
})

describe('livePosts', () => {
  it("lists a running round's member posts so far, not its opening post", () => {
    expect(livePosts(answer).map((i) => i.id)).toEqual(['post-a', 'post-c'])
    expect(livePosts({ posts: 3 })).toEqual([])
  })
})

describe('the progress line', () => {
  const t = translator('en')
  it('says who is speaking, who passed and who missed', () => {
    const p = readProgress({ groupId: 'g1', round: 'post-u', speaking: 'Cy', posted: ['Ada'], passed: ['Bo'], missed: ['Di'], failed: [], done: false })
    expect(p && progressText(p, t)).toBe('Cy is speaking… · passed: Bo · missed: Di')
  })
  it('says the round finished once done', () => {
    const p = readProgress({ groupId: 'g1', round: 'post-u', posted: [], passed: [], missed: [], done: true })
    expect(p && progressText(p, t)).toBe('Round finished.')
  })
  it('rejects malformed progress', () => {
    expect(readProgress({ groupId: 'g1', done: false })).toBeUndefined()
    expect(readProgress('x')).toBeUndefined()
  })
})
