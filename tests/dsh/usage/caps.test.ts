// Daily spending caps on the real DSH core, in-process: reaching a Bot's cap holds the Bot-started
// work sent to it (pending, not lost), tells the person once (today's notices, a notice for the
// Main Bot's next turn that wakes nothing), keeps the person's own prompts working, and raising the
// cap releases what was held. A group round a Bot started skips a capped member.
import { describe, expect, it } from 'vitest'
import type { ScriptMap } from '../../../scripts/scripted-model/format.ts'
import { readSource } from '../../../src/core/sources.ts'
import { disposedAfterEach, prompt, type DshHost } from '../../support/dsh-host.ts'
import { from, team, user, userMessages } from '../delivery/helpers.ts'
import { bots, roomLog, say, team as roomsTeam } from '../rooms/helpers.ts'

const track = disposedAfterEach()
/**
 * Every agent idle and every delivery outcome saved. Not `quiesce`: the cap notice waits in the
 * Main Bot's inbox for its next turn (injected, it wakes nothing), which `quiesce` counts as work.
 */
async function idle(host: DshHost): Promise<void> {
  await Promise.all(host.ctx.agents.list().map((a) => a.whenIdle()))
  await host.ctx.botDelivery.settled()
  await Promise.all(host.ctx.agents.list().map((a) => a.whenIdle()))
}
const CAP_TEXT = /^Daily cap reached: Ada used 2[\d,]+ tokens today \(cap 100\)\. Bot-started work for Ada is held/

describe('daily spending caps (in-process DSH)', () => {
  it('a Bot over its token cap gets no Bot-started message until the cap is raised; the person is told once and can still prompt it', async () => {
    const scripts: ScriptMap = {
      mock: { fallback: { text: 'ok', usage: { input: 1, output: 1 } } },
      ada: {
        fallback: { text: 'ada here', usage: { input: 150, cached: 40, output: 10 } },
        review: { text: '{"changes":[]}', usage: { input: 1, output: 1 } },
      },
    }
    const host = track(await team(scripts))
    const roster = host.ctx.botRoster
    const main = roster.bots().find((b) => b.main)!
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const adaAgent = await roster.agentOf(ada.id)
    await host.ctx.botUsage.configure({ caps: { bots: { [ada.id]: { tokens: 100 } } } })
    expect(host.ctx.botUsage.capReached(ada.id)).toBe(false)

    await prompt(host, adaAgent, 'hello') // the person's prompt: 200 tokens, over the cap
    await idle(host)
    expect(host.ctx.botUsage.capReached(ada.id)).toBe(true)
    expect(host.ctx.botUsage.capReached(main.id)).toBe(false)
    const notices = host.ctx.botUsage.today().notices
    expect(notices).toEqual([{ day: expect.any(String), scope: `bot:${ada.id}`, text: expect.stringMatching(CAP_TEXT) }])
    const mainAgent = await roster.agentOf(main.id)
    expect(mainAgent.status).toBe('idle')
    expect(mainAgent.inbox.nextStep.map((m) => (m.content[0] as { text: string }).text)).toEqual([expect.stringMatching(CAP_TEXT)])
    expect(readSource(mainAgent.inbox.nextStep[0]!.source)).toMatchObject({ form: 'notice', type: 'usage-notice' })
    // The notice's record is saved after the notice is given: wait for that save, not for time.
    const notified = () => host.ctx.botStore.state.usage?.notified
    if (!notified()) {
      await new Promise<void>((resolve) => {
        const stop = host.ctx.botStore.subscribe(() => {
          if (!notified()) return
          stop()
          resolve()
        })
      })
    }
    expect(notified()).toEqual([`${host.ctx.botUsage.today().day} bot:${ada.id}`])

    const adaRequests = () => host.adapter.model.loopRequests('ada').length
    const before = adaRequests()
    await host.ctx.botDelivery.send(from(host, main.id), { to: ada.id, kind: 'message', body: 'please do more work', replyMode: 'user' })
    await idle(host)
    expect(adaRequests()).toBe(before)
    expect(host.ctx.botDelivery.log().at(-1)).toMatchObject({ to: ada.id, status: 'pending' })

    await prompt(host, adaAgent, 'one more from me') // the person's own prompt still works
    expect(adaRequests()).toBe(before + 1)
    await idle(host)
    expect(host.ctx.botUsage.today().notices).toHaveLength(1) // told once

    await host.ctx.botUsage.configure({ caps: { bots: { [ada.id]: { tokens: 1_000_000 } } } })
    await idle(host)
    expect(host.ctx.botDelivery.log().at(-1)).toMatchObject({ to: ada.id, status: 'delivered' })
    expect(
      userMessages(adaAgent)
        .map((m) => m.text)
        .join('\n'),
    ).toContain('please do more work')
  })

  it("the team cap holds every Bot's Bot-started work", async () => {
    const host = track(await team({ mock: { fallback: { text: 'ok', usage: { input: 500, output: 10 } } } }))
    const roster = host.ctx.botRoster
    const main = roster.bots().find((b) => b.main)!
    const bob = await roster.create(user, { name: 'Bob' })
    await host.ctx.botUsage.configure({ caps: { team: { tokens: 400 } } })
    await prompt(host, await roster.agentOf(main.id), 'hi')
    await idle(host)
    expect([host.ctx.botUsage.capReached(main.id), host.ctx.botUsage.capReached(bob.id)]).toEqual([true, true])
    expect(host.ctx.botUsage.today()).toMatchObject({ team: { reached: true, cap: { tokens: 400 } }, notices: [{ scope: 'team' }] })
    await host.ctx.botDelivery.send(from(host, main.id), { to: bob.id, kind: 'message', body: 'job', replyMode: 'user' })
    await idle(host)
    expect(host.ctx.botDelivery.log().at(-1)).toMatchObject({ to: bob.id, status: 'pending' })
  })
})

describe('daily spending caps in group rounds (in-process DSH)', () => {
  it('a round a Bot started skips a capped member (recorded failed with the reason); a round the person started still calls it', async () => {
    const host = track(
      await roomsTeam({ bob: { text: 'Bob here', usage: { input: 300, output: 5 } }, cy: { text: 'Cy here', usage: { input: 1, output: 1 } } }),
    )
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const { Bob, Cy } = await bots(host, ['Bob', 'Cy'])
    await host.ctx.botRooms.createGroup(user, { name: 'G', members: [ada.id, Bob!, Cy!], admin: ada.id })
    await host.ctx.botUsage.configure({ caps: { bots: { [Bob!]: { tokens: 100 } } } })
    await say(host, 'G', '@Bob hello') // the person's round: Bob answers and goes over its cap
    expect(host.ctx.botUsage.capReached(Bob!)).toBe(true)
    const bobTurns = () => host.adapter.model.loopRequests('bob').length
    const before = bobTurns()
    await host.ctx.botRooms.post(from(host, ada.id), 'G', '@Bob @Cy please review', { chain: { hop: 1 } })
    await idle(host)
    expect(bobTurns()).toBe(before)
    expect(roomLog(host, 'G')).toContain('Bob failed and was skipped: its daily spending cap is reached')
    expect(roomLog(host, 'G')).toContain('**Cy:** Cy here')
    await say(host, 'G', '@Bob and you?')
    expect(bobTurns()).toBe(before + 1)
  })
})
