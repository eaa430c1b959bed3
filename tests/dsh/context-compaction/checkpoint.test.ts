// Checkpoints of Bot Sessions through DSH's own compaction machinery, on the real DSH core
// in-process: DSH's token meter and DSH's BasicCompactionEngine (the plugin's subclass, mounted as
// a preset row mounts it), the scripted model with a small window. Only the model is fake.
import type { Agent } from '@deepseek-ai/dsh-agent'
import { describe, expect, it } from 'vitest'
import { OLDER_LINE } from '../../../src/context/compaction/checkpoint-text.ts'
import { disposedAfterEach, prompt, runTurn, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { startCompactingTeamHost } from './helpers.ts'

const track = disposedAfterEach()
const user = { kind: 'user' } as const
const filler = (i: number, times = 30) => `Step ${i}: ${'keep going with the parser port and report progress '.repeat(times)}`
/** A Bot's own work dominates a real conversation (replies, tool results); the checkpoint condenses it. */
const WORK = { text: `Done. ${'I read the module, changed the parser and ran the tests again. '.repeat(40)}` }
const PLANTED = 'Remember the deploy key lives at /srv/keys/ada-7 and never in git.'

type Ev = { type: string; seq: number; data: any; surfaceOp?: unknown }
const eventsOf = (agent: Agent) => agent.session.events as unknown as Ev[]
const compactions = (agent: Agent) => eventsOf(agent).filter((e) => e.type === 'compaction/summary')
/** The replacement message DSH wrote for the latest checkpoint (its text). */
function checkpointMessage(agent: Agent): string {
  const replaced = eventsOf(agent).filter((e) => e.type === 'user/message' && e.surfaceOp)
  const content = replaced.at(-1)?.data.content ?? []
  return content.map((b: { text?: string }) => b.text ?? '').join('')
}

async function adaWithHistory(host: DshHost) {
  const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
  const agent = await host.ctx.botRoster.agentOf(ada.id)
  await prompt(host, agent, PLANTED)
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  const mainSid = main.sessionParts.at(-1)!.sessionId
  await host.ctx.botDelivery.send({ kind: 'bot', sessionId: mainSid }, { to: 'Ada', kind: 'message', body: 'Please review PR 4411 before Friday.' })
  await host.ctx.botDelivery.settled()
  await agent.whenIdle()
  for (let i = 0; i < 4; i++) await prompt(host, agent, filler(i, 6))
  return { ada, agent }
}

describe('botCompaction (in-process DSH)', () => {
  it("DSH's automatic compaction runs on a plain Session past its threshold but never on a Bot Session past it", async () => {
    const host = track(await startCompactingTeamHost({ fallback: { text: 'ok' }, contextWindow: 3_000 }))
    const plain = await runTurn(host, filler(0))
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const bot = await host.ctx.botRoster.agentOf(ada.id)
    for (let i = 1; i <= 6; i++) {
      await prompt(host, plain, filler(i))
      await prompt(host, bot, filler(i))
    }
    expect(compactions(plain).length).toBeGreaterThan(0)
    expect(compactions(bot)).toEqual([])
    // The Bot Session is well past DSH's threshold (0.8 of the window) and DSH made no summary call for it.
    const meter = (host.ctx as any).tokenMeter
    expect(meter.measure(bot.session).totalTokens).toBeGreaterThan(0.8 * 3_000)
    const calls = host.adapter.model.requests.filter((r) => r.purpose === 'compaction')
    expect(calls.some((r) => r.sessionId === String(plain.session.id))).toBe(true)
    expect(calls.some((r) => r.sessionId === String(bot.session.id))).toBe(false)
  })

  it("checkpoint() condenses a Bot Session in place: DSH's summary, then every message to the Bot word for word and anchored", async () => {
    const host = track(await startCompactingTeamHost({ fallback: WORK, contextWindow: 16_000 }))
    const { agent } = await adaWithHistory(host)
    const before = host.adapter.model.loopRequests().at(-1)!.messages.length
    const sid = String(agent.session.id)

    expect(await host.ctx.botCompaction.checkpoint(sid)).toEqual({ ok: true })

    expect(compactions(agent)).toHaveLength(1)
    const text = checkpointMessage(agent)
    expect(text).toContain('[Checkpoint 1]')
    expect(text).toContain('Summary of the conversation so far (scripted).') // DSH's own summarizer ran
    expect(text).toMatch(
      new RegExp(`\\[part 1 #\\d+ · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\] From the user:\\n${PLANTED.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
    )
    expect(text).toMatch(/\[part 1 #\d+ · [^\]]+\] From Main:\n\[Message from Bot Main\]\s+Please review PR 4411 before Friday\./)
    expect(text).toContain(OLDER_LINE)
    expect(text).toContain(filler(3, 6).trim()) // the newest user message too
    // The next request sees the checkpoint instead of the condensed range.
    await prompt(host, agent, 'what next?')
    const after = host.adapter.model.loopRequests().at(-1)!
    expect(after.messages.length).toBeLessThan(before)
    expect(after.messages.map((m) => m.text).join('\n')).toContain(PLANTED)
  })

  it("a person's /compact in a Bot chat (DSH's compactNow) writes the same checkpoint; on a plain Session it is DSH's summary alone", async () => {
    const host = track(await startCompactingTeamHost({ fallback: WORK, contextWindow: 16_000 }))
    const { agent } = await adaWithHistory(host)
    const compaction = (host.ctx as any).compaction as { compactNow(a: Agent, s: AbortSignal): Promise<unknown> }
    expect(await compaction.compactNow(agent, new AbortController().signal)).not.toBeNull()
    expect(checkpointMessage(agent)).toContain('[Checkpoint 1]')
    expect(checkpointMessage(agent)).toContain(PLANTED)

    const plain = await runTurn(host, PLANTED)
    for (let i = 0; i < 3; i++) await prompt(host, plain, filler(i))
    expect(await compaction.compactNow(plain, new AbortController().signal)).not.toBeNull()
    expect(checkpointMessage(plain)).toContain('Summary of the conversation so far (scripted).')
    expect(checkpointMessage(plain)).not.toContain('[Checkpoint')
    expect(checkpointMessage(plain)).not.toContain(PLANTED)
  })

  it('keeps within what it replaces: a short stretch keeps the newest messages that fit, and one too small to shrink is refused with nothing changed', async () => {
    const host = track(await startCompactingTeamHost({ fallback: { text: 'ok' }, contextWindow: 16_000 }))
    const { agent } = await adaWithHistory(host) // the user's words are most of this conversation
    expect(await host.ctx.botCompaction.checkpoint(String(agent.session.id))).toEqual({ ok: true })
    const text = checkpointMessage(agent)
    expect(text).toContain(filler(3, 6).trim()) // the newest message is kept…
    expect(text).not.toContain(PLANTED) // …the oldest did not fit; read_own_chat finds it
    expect(text).toContain(OLDER_LINE)

    const bob = await host.ctx.botRoster.create(user, { name: 'Bob' })
    const tiny = await host.ctx.botRoster.agentOf(bob.id)
    await prompt(host, tiny, 'hi')
    await prompt(host, tiny, 'hello again')
    const seqBefore = compactions(tiny).length
    const outcome = await host.ctx.botCompaction.checkpoint(String(tiny.session.id))
    expect(outcome).toEqual({ ok: false, reason: expect.stringMatching(/smaller summary/) })
    expect(compactions(tiny)).toHaveLength(seqBefore)
    expect(eventsOf(tiny).some((e) => e.type === 'user/message' && e.surfaceOp && (e.surfaceOp as { op?: string }).op === 'replace')).toBe(false)
  })

  it('answers ok:false and changes nothing for a plain Session, and where no Bot compaction engine runs', async () => {
    const host = track(await startCompactingTeamHost({ fallback: WORK, contextWindow: 16_000 }))
    const plain = await runTurn(host, filler(0))
    expect(await host.ctx.botCompaction.checkpoint(String(plain.session.id))).toEqual({ ok: false, reason: 'not a Bot Session' })
    expect(compactions(plain)).toEqual([])

    const bare = track(await startTeamHost({ fallback: { text: 'ok' } }))
    const ada = await bare.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await bare.ctx.botRoster.agentOf(ada.id)
    await prompt(bare, agent, filler(1))
    const seq = agent.session.seq
    const outcome = await bare.ctx.botCompaction.checkpoint(String(agent.session.id))
    expect(outcome).toMatchObject({ ok: false, reason: expect.stringMatching(/no Bot compaction engine/) })
    expect(agent.session.seq).toBe(seq)
  })
})
