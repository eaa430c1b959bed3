// Shared pieces of the context tests: the user messages of a Session log, a temp DSH home removed
// after each test, and the check every handoff test makes of a new part's opening (its package
// alone, answered with the fixed acknowledgement and no model request).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionId } from '@deepseek-ai/dsh-session'
import { expect, onTestFinished } from 'vitest'
import { HANDOFF_ACK } from '../../../src/context/note.ts'
import { readSource } from '../../../src/core/sources.ts'
import type { DshHost } from '../../support/dsh-host.ts'

/** The user messages of a log (an event's data is the message). */
export const userMessages = (events: readonly any[]) => events.filter((e) => e.type === 'user/message').map((e) => e.data.message ?? e.data)

/**
 * A fresh temp home per call (inside a test), removed when the test has finished: after every
 * `afterEach` hook, so the hosts running on it are disposed first whatever order the hooks were
 * declared in (a host still writing while its folder is removed fails the test with ENOTEMPTY).
 */
export function tempHomes(prefix: string): () => string {
  return () => {
    const h = mkdtempSync(join(tmpdir(), prefix))
    onTestFinished(() => rmSync(h, { recursive: true, force: true }))
    return h
  }
}

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
