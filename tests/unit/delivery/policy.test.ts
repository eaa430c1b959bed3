// Pure delivery policy: hops, send cap, message text, recovery decisions, bounding, wording.
import { describe, expect, it } from 'vitest'
import {
  boundDeliveries,
  checkSend,
  discardReport,
  messageText,
  recoveryAction,
  replyBody,
  turnOutcome,
  type RecoveryAction,
} from '../../../src/delivery/policy.ts'
import { clip } from '../../../src/core/text-limits.ts'

const limits = { hopLimit: 6, sendCap: 5 }

describe('hops and the send cap', () => {
  it('clip keeps short text and cuts long text to the limit with a marker saying how much was cut', () => {
    expect(clip('short', 10)).toBe('short')
    const cut = clip('x'.repeat(1000), 100)
    expect([...cut].length).toBeLessThanOrEqual(100)
    expect(cut).toMatch(/… \[940 more characters cut\]$/)
  })

  it('a message carries one more than its turn; refused past the limit, with a reason naming it', () => {
    expect(checkSend(0, 0, limits)).toEqual({ ok: true, hop: 1 })
    expect(checkSend(5, 0, limits)).toEqual({ ok: true, hop: 6 })
    const refused = checkSend(6, 0, limits)
    expect(refused.ok).toBe(false)
    expect(!refused.ok && refused.reason).toMatch(/hop limit \(6\) is reached/)
  })

  it('caps the messages one turn may send (fan-out), independently of hops', () => {
    expect(checkSend(0, 4, limits)).toEqual({ ok: true, hop: 1 })
    const refused = checkSend(0, 5, limits)
    expect(!refused.ok && refused.reason).toMatch(/at most 5 Bot messages/)
  })

  it('every (hop, sent) pair below the limits is allowed, every pair at or past them refused', () => {
    for (let hop = 0; hop <= 8; hop++) {
      for (let sent = 0; sent <= 7; sent++) {
        expect(checkSend(hop, sent, limits).ok).toBe(hop + 1 <= 6 && sent < 5)
      }
    }
  })
})

describe('message text', () => {
  it('headers name the sender and the kind; a message says where the answer goes', () => {
    expect(messageText('message', 'Main', 'Do X.', { replyMode: 'sender', hop: 1, hopLimit: 6 })).toBe(
      '[Message from Bot Main]\n\nDo X.\n\n(Your final answer of this turn is sent back to Main automatically; Main cannot see this chat.)',
    )
    expect(messageText('message', 'Main', 'Do X.', { replyMode: 'user', hop: 1, hopLimit: 6 })).toContain('answer the user here')
    expect(messageText('interrupt', 'Main', 'Now.', { hop: 1, hopLimit: 6 })).toMatch(/^\[Interruption from Bot Main/)
    expect(messageText('stop', 'Main', 'why', { hop: 1, hopLimit: 6 })).toBe('[Bot Main stopped your previous turn]\n\nwhy')
    expect(messageText('reply', 'Ada', 'FOUR', { hop: 6, hopLimit: 6 })).toMatch(
      /^\[Reply from Bot Ada\]\n\nFOUR\n\n\(This conversation chain reached the hop limit/,
    )
  })
})

describe('start-up recovery', () => {
  it('decides from the facts: in the log → delivered; in the restored inbox → re-drive; nowhere → send', () => {
    const table: [boolean, boolean, boolean, RecoveryAction][] = [
      [true, false, false, 'mark-delivered'],
      [true, true, false, 'mark-delivered'],
      [true, false, true, 'mark-delivered'],
      [false, true, false, 'redrive'],
      [false, false, false, 'send'],
      [false, true, true, 'discard'],
      [false, false, true, 'discard'],
    ]
    for (const [inLog, inRestoredInbox, targetGone, action] of table) {
      expect(recoveryAction({ inLog, inRestoredInbox, targetGone }), JSON.stringify({ inLog, inRestoredInbox, targetGone })).toBe(action)
    }
  })

  it('never sends a record that DSH already holds', () => {
    for (const inLog of [true, false]) {
      for (const targetGone of [true, false]) expect(recoveryAction({ inLog, inRestoredInbox: true, targetGone })).not.toBe('send')
    }
  })
})

describe('the bounded log', () => {
  it('keeps every pending record and the newest finished ones, in order', () => {
    const list = Array.from({ length: 10 }, (_, i) => ({
      id: i,
      kind: 'message' as const,
      status: i % 3 === 0 ? ('pending' as const) : ('delivered' as const),
    }))
    const kept = boundDeliveries(list, 3)
    expect(kept.map((d) => d.id)).toEqual([0, 3, 5, 6, 7, 8, 9]) // pending: 0 3 6 9; newest finished: 5 7 8
    expect(boundDeliveries(list, 100)).toEqual(list)
    expect(boundDeliveries(list, 0).every((d) => d.status === 'pending')).toBe(true)
  })

  it('keeps a delivered message whose reply is owed like a pending one, and drops it once its reply is recorded', () => {
    const owed = { id: 0, kind: 'message' as const, status: 'delivered' as const, replyMode: 'sender' as const }
    const others = Array.from({ length: 5 }, (_, i) => ({ id: i + 1, kind: 'reply' as const, status: 'delivered' as const }))
    expect(boundDeliveries([owed, ...others], 2).map((d) => d.id)).toEqual([0, 4, 5])
    expect(boundDeliveries([{ ...owed, reply: 'delivery-9' }, ...others], 2).map((d) => d.id)).toEqual([4, 5])
    expect(boundDeliveries([{ ...owed, replyMode: 'user' as const }, ...others], 2).map((d) => d.id)).toEqual([4, 5])
  })
})

describe('replies and reports', () => {
  it('routes the final text, or a clear failure notice', () => {
    expect(replyBody('Ada', 'delivery-1', { kind: 'completed', text: ' FOUR ' })).toBe('FOUR')
    expect(replyBody('Ada', 'delivery-1', { kind: 'completed', text: '' })).toMatch(/without a text answer/)
    expect(replyBody('Ada', 'delivery-1', turnOutcome({ kind: 'aborted', reason: { kind: 'hook', reason: 'stopped by Main: x' } }, ''))).toBe(
      "No answer: Ada's turn that handled your message (delivery-1) was stopped before it finished (stopped by Main: x). Send the message again if it is still needed.",
    )
    expect(replyBody('Ada', 'delivery-1', turnOutcome({ kind: 'error', error: { message: 'rate limited' } }, ''))).toMatch(/failed \(rate limited\)/)
    expect(turnOutcome({ kind: 'max-tokens' }, 'partial')).toEqual({ kind: 'completed', text: 'partial' })
    expect(turnOutcome(undefined, '')).toEqual({ kind: 'failed', why: 'unknown' })
  })

  it('tells the sender what was discarded, by whom and why', () => {
    expect(discardReport('Ada', 'delivery-4', 'check it', 'Main stopped Ada ("plan changed")')).toBe(
      'Not delivered: your message to Ada (delivery-4) was discarded before Ada read it, because Main stopped Ada ("plan changed"). The message was: "check it". Send it again if it is still needed.',
    )
    expect(discardReport('Ada', 'delivery-5', 'check it', 'Ada was deleted')).toBe(
      'Not delivered: your message to Ada (delivery-5) was discarded before Ada read it, because Ada was deleted. The message was: "check it". Send it again if it is still needed.',
    )
    expect(discardReport('Ada', 'd', 'x'.repeat(500), 'Ada was deleted')).toContain(`"${'x'.repeat(200)}…"`)
  })
})
