// The Group dialog's pure parts: a `/groups` answer checked for shape, moving a member in the
// speaking order, and the body a save sends (everything on create, only the changes on edit).
import { describe, expect, it } from 'vitest'
import { FALLBACK_LIMITS, formOf, groupBody, moveMember, readGroups, withoutMember, type GroupDetails } from '../../../src/client/group-form.ts'

const review: GroupDetails = {
  id: 'group-1',
  name: 'Review',
  members: [
    { id: 'bot-2', name: 'Ada' },
    { id: 'bot-3', name: 'Bob' },
    { id: 'bot-4', name: 'Cy' },
  ],
  admin: { id: 'bot-3', name: 'Bob' },
  mode: 'admin',
  notice: 'Be brief.',
}

describe('readGroups', () => {
  it('keeps well-formed groups and the service limits, drops malformed groups', () => {
    const answer = {
      groups: [review, { ...review, id: 'group-2', mode: 'loud' }, { id: 'group-3' }, null],
      limits: { nameMax: 60, noticeMax: 2000, membersMin: 2, membersMax: 12 },
    }
    expect(readGroups(answer)).toEqual({ groups: [review], limits: { nameMax: 60, noticeMax: 2000, membersMin: 2, membersMax: 12 } })
  })

  it('falls back to the known limits when the answer has none or broken ones', () => {
    expect(readGroups(undefined)).toEqual({ groups: [], limits: FALLBACK_LIMITS })
    expect(readGroups({ groups: 'x', limits: { noticeMax: -1, nameMax: 'big' } }).limits).toEqual(FALLBACK_LIMITS)
  })
})

describe('moveMember', () => {
  it('swaps with the neighbour and leaves the ends alone', () => {
    expect(moveMember(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b'])
    expect(moveMember(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c'])
    expect(moveMember(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c'])
    expect(moveMember(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c'])
  })
})

describe('groupBody', () => {
  it('sends every field on create, admin only when chosen', () => {
    expect(groupBody({ name: 'Crew', members: ['bot-2', 'bot-3'], admin: '', mode: 'everyone', notice: '' }, undefined)).toEqual({
      name: 'Crew',
      members: ['bot-2', 'bot-3'],
      mode: 'everyone',
      notice: '',
    })
    expect(groupBody({ name: 'Crew', members: ['bot-2', 'bot-3'], admin: 'bot-3', mode: 'admin', notice: 'n' }, undefined)).toEqual({
      name: 'Crew',
      members: ['bot-2', 'bot-3'],
      admin: 'bot-3',
      mode: 'admin',
      notice: 'n',
    })
  })

  it('sends only what changed on edit: a new order, no admin as "none", the notice', () => {
    const form = formOf(review)
    expect(groupBody(form, review)).toEqual({})
    expect(groupBody({ ...form, members: moveMember(form.members, 2, -1) }, review)).toEqual({ members: ['bot-2', 'bot-4', 'bot-3'] })
    expect(groupBody(withoutMember(form, 'bot-3'), review)).toEqual({ members: ['bot-2', 'bot-4'], admin: 'none' })
    expect(groupBody({ ...form, notice: 'Longer.', mode: 'everyone' }, review)).toEqual({ notice: 'Longer.', mode: 'everyone' })
  })
})
