// The two Session facts behind the statuses "waiting for approval" and "stopped", read off a DSH
// event log (pure folds).
import { describe, expect, it } from 'vitest'
import { awaitsApproval, endedStopped, SCAN_MAX, type LogEventLike } from '../../../src/web/session-status.ts'
import { deliverySource } from '../../../src/core/sources.ts'

const start = (turn = 1): LogEventLike => ({ type: 'turn/start', data: { turn } })
const end = (kind: string): LogEventLike => ({ type: 'turn/end', data: { reason: { kind } } })
const asked = (id: string): LogEventLike => ({ type: 'approval/asked', data: { id, toolName: 'bash' } })
const decided = (id: string): LogEventLike => ({ type: 'approval/decided', data: { id, outcome: 'allowed-once' } })
const user = (source: unknown = { kind: 'user' }): LogEventLike => ({ type: 'user/message', data: { id: 'm', source, content: [] } })
const assistant: LogEventLike = { type: 'assistant/message', data: {} }
const stopNotice = user(deliverySource({ id: 'delivery-1', from: 'bot-1', kind: 'stop' }, 'Main', { hop: 1 }))
const relayMessage = user(deliverySource({ id: 'delivery-2', from: 'bot-1', kind: 'message' }, 'Main', { hop: 1 }))

describe('awaitsApproval', () => {
  it('is true while an approval/asked of the open turn has no approval/decided', () => {
    expect(awaitsApproval([start(), user(), asked('a')])).toBe(true)
    expect(awaitsApproval([start(), user(), asked('a'), { type: 'tool/call', data: {} }])).toBe(true)
    expect(awaitsApproval([start(), user(), asked('a'), decided('a'), asked('b')])).toBe(true)
  })

  it('is false once decided, with no prompt, after the turn ended, and for an empty log', () => {
    expect(awaitsApproval([start(), user(), asked('a'), decided('a')])).toBe(false)
    expect(awaitsApproval([start(), user(), assistant])).toBe(false)
    expect(awaitsApproval([start(), user(), asked('a'), end('aborted')])).toBe(false) // a prompt left open by a crash tail
    expect(awaitsApproval([start(), asked('a'), end('completed'), start(2), user()])).toBe(false) // an earlier turn's prompt
    expect(awaitsApproval([])).toBe(false)
  })

  it('ignores an asked event without a string id and looks at most SCAN_MAX events back', () => {
    expect(awaitsApproval([start(), { type: 'approval/asked', data: {} }])).toBe(false)
    const filler = Array.from({ length: SCAN_MAX }, () => ({ type: 'tool/progress', data: {} }))
    expect(awaitsApproval([start(), asked('a'), ...filler])).toBe(false)
  })
})

describe('endedStopped', () => {
  it("is true when the latest turn ended aborted or cancelled (stop_bot, the person's stop)", () => {
    expect(endedStopped([start(), user(), assistant, end('aborted')])).toBe(true)
    expect(endedStopped([start(), user(), end('cancelled')])).toBe(true)
  })

  it('stays true through the stop-notice turn that follows a stop_bot', () => {
    expect(endedStopped([start(), user(), end('aborted'), start(2), stopNotice, assistant, end('completed')])).toBe(true)
  })

  it('ends when another turn starts (running) or completes after the stop', () => {
    expect(endedStopped([start(), user(), end('aborted'), start(2), user()])).toBe(false)
    expect(endedStopped([start(), user(), end('aborted'), start(2), user(), assistant, end('completed')])).toBe(false)
    expect(endedStopped([start(), user(), end('aborted'), start(2), stopNotice, relayMessage, end('completed')])).toBe(false)
    expect(endedStopped([start(), user(), end('aborted'), start(2), stopNotice, end('completed'), start(3)])).toBe(false)
  })

  it('is false for completed or failed turns, an empty log, and a turn with no input', () => {
    expect(endedStopped([start(), user(), assistant, end('completed')])).toBe(false)
    expect(endedStopped([start(), user(), end('error')])).toBe(false)
    expect(endedStopped([])).toBe(false)
    expect(endedStopped([start(), end('aborted'), start(2), end('completed')])).toBe(false) // a turn without the notice is a turn of its own
  })

  it('reads a message whose source sits under data.message too', () => {
    const wrapped: LogEventLike = { type: 'user/message', data: { message: { source: (stopNotice.data as { source: unknown }).source } } }
    expect(endedStopped([start(), user(), end('aborted'), start(2), wrapped, end('completed')])).toBe(true)
  })
})
