// Shared pieces of the context tests: the user messages of a Session log, a temp DSH home removed
// after each test, and the check every handoff test makes of a new part's opening (its package
// alone, answered with the fixed acknowledgement and no model request).
import { SessionId } from '@deepseek-ai/dsh-session'
import { expect } from 'vitest'
import { HANDOFF_ACK } from '../../../src/context/note.ts'
import { readSource } from '../../../src/core/sources.ts'
import type { DshHost } from '../../support/dsh-host.ts'
import { tempDir } from '../../support/temp-dir.ts'

/** The user messages of a log (an event's data is the message). */
export const userMessages = (events: readonly any[]) => events.filter((e) => e.type === 'user/message').map((e) => e.data.message ?? e.data)

/** A fresh temp home per call (inside a test), removed after the hosts on it are disposed. */
export const tempHomes =
  (prefix: string): (() => string) =>
  () =>
    tempDir(prefix)

/** Part `part`'s Session opened with its handoff package alone, answered with HANDOFF_ACK and no model request; its agent. */
export async function expectOpeningAnswered(host: DshHost, sessionId: string, part: number) {
  const agent = host.ctx.agents.get(SessionId(sessionId))!
  await agent.whenIdle()
  const opening = userMessages(agent.session.events)
  expect(opening).toHaveLength(1)
  expect(readSource(opening[0].source)).toMatchObject({ type: 'handoff', part })
  expect(agent.session.events.filter((e: any) => e.type === 'assistant/message').map((e: any) => (e.data.message ?? e.data).content[0]?.text)).toEqual([
    HANDOFF_ACK,
  ])
  expect(host.adapter.requests.filter((r) => r.sessionId === sessionId)).toHaveLength(0)
  return agent
}
