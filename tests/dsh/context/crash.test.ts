// A handoff cut by SIGKILL: a child process running real DSH in-process is killed at one
// deterministic point of a Bot's handoff — while the note is being written (nothing of the new
// part exists yet), or right after team state recorded the new part with its package still
// pending. A restart on the same home has exactly one current part, and nothing is lost: the
// package is sent then (answered without a model call), and part 1 stays searchable.
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { expectOpeningAnswered, tempHomes, userMessages } from './helpers.ts'
import { disposedAfterEach, prompt, startTeamHost } from '../../support/dsh-host.ts'
import { killedAtMarker } from '../../support/kill-point.ts'

const CHILD = fileURLToPath(new URL('./fixtures/handoff-child.ts', import.meta.url))
const track = disposedAfterEach()

const killedAt = (home: string, mode: 'note' | 'opening') => killedAtMarker(CHILD, [home, mode])

const home = tempHomes('bot-context-crash-')
const restart = async (h: string) => track(await startTeamHost({ contextWindow: 8_000, fallback: { text: 'after restart' } }, { home: h }))

describe('a handoff cut by SIGKILL', () => {
  it('killed while the note is written: after restart the Bot has exactly its one part, which goes on and hands off later', async () => {
    const h = home()
    await killedAt(h, 'note')
    const host = await restart(h)
    const parts = host.ctx.botRoster.find('Ada')!.sessionParts
    expect(parts).toHaveLength(1)
    expect(parts[0]!.endedAt).toBeUndefined()
    const agent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.find('Ada')!.id)
    expect(JSON.stringify(userMessages(agent.session.events))).toContain('PLANT-7 lives at /srv/plant/seven.txt')
    for (let i = 0; i < 5 && host.ctx.botRoster.find('Ada')!.sessionParts.length === 1; i++) {
      await prompt(host, agent, `after the restart ${i} ${'lorem ipsum dolor sit amet '.repeat(60)}`)
      await host.ctx.botContext.settled()
    }
    expect(host.ctx.botRoster.find('Ada')!.sessionParts).toHaveLength(2)
    expect(host.adapter.requests.filter((r) => r.label === 'handoff-note')).toHaveLength(1)
  })

  it('killed after state recorded part 2 with its package pending: after restart exactly one current part, its package first, answered without a model call, part 1 searchable', async () => {
    const h = home()
    expect(await killedAt(h, 'opening')).toEqual({ mode: 'opening', parts: 2 })
    const host = await restart(h)
    await host.ctx.botContext.settled()
    await expect.poll(() => host.ctx.botRoster.find('Ada')!.sessionParts[1]!.opening).toBe('sent')
    const parts = host.ctx.botRoster.find('Ada')!.sessionParts
    expect(parts).toHaveLength(2)
    expect(parts.filter((p) => !p.endedAt).map((p) => p.part)).toEqual([2])
    await expectOpeningAnswered(host, parts[1]!.sessionId, 2)
    await host.ctx.botArchive.caughtUp()
    expect(await host.ctx.botArchive.readOwnChat(parts[1]!.sessionId, { query: 'PLANT-7 seven.txt' })).toContain(
      'User: Remember: PLANT-7 lives at /srv/plant/seven.txt',
    )
  })
})
