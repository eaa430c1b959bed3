// The context steward on a real in-process DSH with the scripted model and a small window: the
// end-of-turn check, the steward's one decision, the handoff to a new Session part (same Bot, its
// package first, answered without a model call), the fallback note on an overflow, input to an
// old part forwarded to the current one, and the old part still searchable.
import { SessionId } from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { HANDOFF_ACK } from '../../../src/context/note.ts'
import { readSource } from '../../../src/core/sources.ts'
import { userMessages } from './helpers.ts'
import type { Script } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt, startTeamHost, type DshHost } from '../../support/dsh-host.ts'

const track = disposedAfterEach()
const user = { kind: 'user' } as const
const WINDOW = 8_000
const team = async (script: Script) => track(await startTeamHost({ contextWindow: WINDOW, fallback: { text: 'ok' }, ...script }, { permissions: true }))
const filler = (n: number, tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(n)}`
const partsOf = (host: DshHost, name: string) => host.ctx.botRoster.find(name)!.sessionParts
const stewardCalls = (host: DshHost) => host.adapter.requests.filter((r) => r.label === 'steward')
const noteCalls = (host: DshHost) => host.adapter.requests.filter((r) => r.label === 'handoff-note')

/** Prompt the Bot until its chat has moved to part `n` (at most `max` prompts). */
async function fillUntilPart(host: DshHost, name: string, n: number, max = 40): Promise<number> {
  let i = 0
  for (; i < max && partsOf(host, name).length < n; i++) {
    const agent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.find(name)!.id)
    await prompt(host, agent, filler(120, `prompt ${i}`))
    await host.ctx.botContext.settled()
  }
  return i
}

/** Part 2 opened by a move without a note: its package says why, holds `latest`, and the cut-off turn went on there with `reply`. */
async function expectResumedWithFallback(host: DshHost, parts: readonly { sessionId: string }[], why: string, latest: string, reply: string) {
  const second = host.ctx.agents.get(SessionId(parts[1]!.sessionId))!
  await second.whenIdle()
  const text = (userMessages(second.session.events)[0] as any).content[0].text as string
  expect(text).toContain(`No note was written for this handoff (${why}`)
  expect(text).toContain(latest)
  expect(text).toContain('go on with it now')
  const last = host.adapter.model.loopRequests().at(-1)!
  expect(last.sessionId).toBe(parts[1]!.sessionId)
  expect(last.reply).toEqual({ text: reply })
}

describe('context steward: handoff to a new Session part', () => {
  it('crossing the check line asks the steward once; its handoff opens part 2 for the same Bot, model and preset, the package first, answered with zero model calls', async () => {
    const host = await team({ steward: { text: '{"action":"handoff","reason":"done"}' } })
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada', permissionPreset: 'read-only' })
    const first = await host.ctx.botRoster.agentOf(bot.id)
    await prompt(host, first, 'Remember: the deploy key lives in /srv/keys/alpha-7.pem and never print it.')
    await host.ctx.botContext.settled()
    expect(stewardCalls(host)).toHaveLength(0) // below the check line: no side call
    const prompts = await fillUntilPart(host, 'Ada', 2)

    expect(stewardCalls(host)).toHaveLength(1)
    expect(stewardCalls(host)[0]!.purpose).toBe('compaction')
    const parts = partsOf(host, 'Ada')
    expect(parts).toHaveLength(2)
    expect(parts[0]).toMatchObject({ part: 1, endReason: expect.stringMatching(/^handoff: the steward chose a handoff/) })
    expect(parts[1]).toMatchObject({ part: 2, opening: 'sent', note: `context/${bot.id}/part-2.md` })
    expect(parts[0]!.endedAt).toBeDefined()

    const second = host.ctx.agents.get(SessionId(parts[1]!.sessionId))!
    await second.whenIdle()
    expect(host.ctx.botRoster.ownerOf(parts[1]!.sessionId)).toMatchObject({ kind: 'own', botId: bot.id })
    expect((second.session.events.filter((e: any) => e.type === 'permission/preset').at(-1)?.data as { preset?: string } | undefined)?.preset).toBe('read-only')
    const opening = userMessages(second.session.events)[0] as any
    expect(readSource(opening.source)).toMatchObject({ type: 'handoff', part: 2, resume: false })
    const text = opening.content[0].text as string
    expect(text).toMatch(/^\[Handoff · part 2\]/)
    // The latest message word for word; earlier ones in the anchored list (within its budget).
    const latest = filler(120, `prompt ${prompts - 1}`).trim()
    expect(text).toMatch(/## Latest messages to you, word for word \(oldest first\)\n\[part 1 #\d+ · [^\]]+\] User:\n/)
    expect(text).toContain(`User:\n${latest}\n`)
    expect(text).toMatch(
      /## Messages to you in part 1, before the latest ones\n(- \[part 1 #\d+ · [^\]]+\] User: .*\n|- \(\d+ older message\(s\) not listed; read_own_chat finds them\.\)\n)+/,
    )
    expect(text).toContain('## Handoff note\n## Goals')
    expect(readFileSync(join(host.home, 'bot', parts[1]!.note!), 'utf8')).toBe(text)
    // The opening turn: the fixed answer, no request to the model for part 2.
    expect(host.adapter.requests.filter((r) => r.sessionId === parts[1]!.sessionId)).toHaveLength(0)
    expect(second.session.events.filter((e: any) => e.type === 'assistant/message').map((e: any) => (e.data.message ?? e.data).content[0]?.text)).toEqual([
      HANDOFF_ACK,
    ])

    // The next prompt is answered in part 2 by the model, starting from the package.
    await prompt(host, second, 'what is next?')
    const req = host.adapter.model.loopRequests().at(-1)!
    expect(req.sessionId).toBe(parts[1]!.sessionId)
    expect(req.messages[0]!.text).toMatch(/^\[Handoff · part 2\]/)
    // Part 1 is still searchable, and read_own_chat shows the note that closed it.
    await host.ctx.botArchive.caughtUp()
    expect(await host.ctx.botArchive.readOwnChat(parts[1]!.sessionId, { part: 1 })).toMatch(/^The note that closed part 1:\n## Goals\n/)
    expect(await host.ctx.botArchive.readOwnChat(parts[1]!.sessionId, { part: 2 })).toMatch(/^Part 2 is your current chat/)
    expect(await host.ctx.botArchive.readOwnChat(parts[1]!.sessionId, { query: 'alpha-7.pem never print' })).toMatch(
      /\[part 1 #\d+ [^\]]*\] User: Remember: the deploy key/,
    )
  })

  it('a malformed steward answer hands off; a checkpoint with no checkpoint service in the host hands off too', async () => {
    for (const answer of ['I think we should maybe wait', '{"action":"checkpoint","reason":"midway"}']) {
      const host = await team({ steward: { text: answer } })
      await host.ctx.botRoster.create(user, { name: 'Ada' })
      await fillUntilPart(host, 'Ada', 2)
      expect(stewardCalls(host)).toHaveLength(1)
      expect(partsOf(host, 'Ada')[0]!.endReason).toMatch(answer.startsWith('{') ? /a checkpoint did not make room/ : /the steward gave no decision/)
      expect(noteCalls(host)).toHaveLength(1)
    }
  })

  it('a note missing headings is retried once; failing again below the hard line leaves the part as it is', async () => {
    const host = await team({ note: { text: '## Goals\nonly this' } })
    await host.ctx.botRoster.create(user, { name: 'Ada' })
    const bot = host.ctx.botRoster.find('Ada')!
    for (let i = 0; i < 40 && noteCalls(host).length === 0; i++) {
      await prompt(host, await host.ctx.botRoster.agentOf(bot.id), filler(120, `p${i}`))
      await host.ctx.botContext.settled()
    }
    expect(noteCalls(host)).toHaveLength(2)
    expect(noteCalls(host)[1]!.system).toContain('lacked these headings: Constraints and preferences')
    expect(partsOf(host, 'Ada')).toHaveLength(1)
  })

  it('a context overflow from the provider moves at once with a fallback note (no note call) and the cut-off turn goes on in the new part', async () => {
    const host = await team({ steps: [{ text: 'first' }, { fail: 'context-overflow' }, { text: 'resumed in part 2' }] })
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    await prompt(host, agent, 'Build the report for ticket OPS-4521.')
    await prompt(host, agent, 'Now add the error line: ENOSPC at /var/lib/data.')
    await host.ctx.botContext.settled()
    const parts = partsOf(host, 'Ada')
    expect(parts).toHaveLength(2)
    expect(parts[1]).toMatchObject({ resume: true })
    expect(noteCalls(host)).toHaveLength(0)
    expect(stewardCalls(host)).toHaveLength(0)
    await expectResumedWithFallback(
      host,
      parts,
      'the provider reported a context overflow)',
      'Now add the error line: ENOSPC at /var/lib/data.',
      'resumed in part 2',
    )
  })

  it('a prompt sent to the old part (an open browser tab) lands in the current part and is answered there', async () => {
    const host = await team({})
    await host.ctx.botRoster.create(user, { name: 'Ada' })
    await fillUntilPart(host, 'Ada', 2)
    const [old, current] = partsOf(host, 'Ada')
    const oldAgent = host.ctx.agents.get(SessionId(old!.sessionId))!
    const before = host.adapter.model.loopRequests().length
    await prompt(host, oldAgent, 'typed into the old tab: rename the branch to release-9')
    const target = host.ctx.agents.get(SessionId(current!.sessionId))!
    await expect
      .poll(() => userMessages(target.session.events).some((m: any) => m.content[0]?.text === 'typed into the old tab: rename the branch to release-9'))
      .toBe(true)
    await target.whenIdle()
    const after = host.adapter.model.loopRequests().slice(before)
    expect(after.map((r) => r.sessionId)).toEqual([current!.sessionId])
    expect(userMessages(oldAgent.session.events).some((m: any) => m.content[0]?.text?.startsWith('typed into the old tab'))).toBe(false)
  })
})

describe('context steward: mid-turn', () => {
  it('past the hard line before a step (a tool result grew the chat): the step is not sent, the Bot moves at once with a fallback note and the turn goes on in the new part', async () => {
    const host = await team({
      steps: [{ text: 'noted' }, { toolCalls: [{ name: 'fetch_log', args: {} }] }, { text: 'finished the log review in the new part' }],
    })
    host.ctx.tools.register(
      defineTool({
        name: 'fetch_log',
        description: 'returns a long log',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        async execute() {
          return `LOG-START ${'line of the build log '.repeat(1_400)} LOG-END`
        },
      }),
    )
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(bot.id)
    await prompt(host, agent, 'Keep in mind: release train R-88.')
    await prompt(host, agent, 'Review the build log and report.')
    await host.ctx.botContext.settled()
    const parts = partsOf(host, 'Ada')
    expect(parts).toHaveLength(2)
    expect(parts[0]!.endReason).toMatch(/past the hard line/)
    expect(parts[1]).toMatchObject({ resume: true })
    expect(noteCalls(host)).toHaveLength(0)
    // No request of part 1 carried the tool result: the step past the line was never sent.
    const part1 = host.adapter.model.loopRequests().filter((r) => r.sessionId === parts[0]!.sessionId)
    expect(part1.some((r) => r.messages.some((m) => m.text.includes('LOG-END')))).toBe(false)
    await expectResumedWithFallback(host, parts, 'past the hard line', 'Review the build log and report.', 'finished the log review in the new part')
  })
})

describe('context steward: a window too small for the Bot', () => {
  it('a window smaller than the system text and tools does not hand off again and again: one prompt, at most one move, and the new part rests', async () => {
    const host = track(await startTeamHost({ contextWindow: 2_000, fallback: { text: 'ok' } }))
    const bot = await host.ctx.botRoster.create(user, { name: 'Ada' })
    await prompt(host, await host.ctx.botRoster.agentOf(bot.id), 'hello')
    await host.ctx.botContext.settled()
    const parts = partsOf(host, 'Ada')
    expect(parts.length).toBeLessThanOrEqual(2)
    await host.ctx.agents.get(SessionId(parts.at(-1)!.sessionId))!.whenIdle()
    await host.ctx.botContext.settled()
    expect(partsOf(host, 'Ada')).toHaveLength(parts.length)
    expect(host.ctx.botContext.stats.handoffs).toBe(parts.length - 1)
  })
})
