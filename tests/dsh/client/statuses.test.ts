// The statuses "waiting for approval" and "stopped" on a real DSH web server, in-process: each
// reaches the client by push (the team event stream), from DSH's own facts — the approval audit
// pair in the Bot Session's log, a turn that ended stopped, the pause hold — and goes away when
// the next turn of the Bot's own starts.
import UserApproval from '@deepseek-ai/dsh-user-approval'
import { afterEach, describe, expect, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { registerApprovalTool } from '../../support/dsh-host.ts'
import { serverEvents, startWebTeamHost, type WebTeamHost } from '../../support/web-host.ts'
import { from, quiesce, slowTool, user, userPrompt } from '../delivery/helpers.ts'

let web: WebTeamHost | undefined
let controller: AbortController | undefined
afterEach(async () => {
  controller?.abort()
  await web?.host.dispose()
})

/** "ok"; ASK → the `needs_approval` tool; SLOW → the `slow` tool. */
const model = (req: RecordedRequest): Reply => {
  if (lastToolResults(req).length) return { text: 'done' }
  const said = userTextsSinceLastAssistant(req).join('\n')
  if (said.includes('ASK')) return { toolCalls: [{ name: 'needs_approval', args: {} }] }
  if (said.includes('SLOW')) return { toolCalls: [{ name: 'slow', args: {} }] }
  return { text: 'ok' }
}

/** The team stream; `until(name, status)` resolves with the first pushed view where the Bot has that status. */
async function stream(w: WebTeamHost) {
  controller = new AbortController()
  const res = await fetch(`${w.origin}/bot-team/api/events`, { signal: controller.signal })
  const next = serverEvents(res.body!, 'team')
  return {
    async until(name: string, status: string): Promise<any> {
      for (;;) {
        const view = await next()
        if (view.bots.find((b: any) => b.name === name)?.status === status) return view
      }
    },
  }
}

describe('pushed statuses', () => {
  it("waiting for approval while DSH's approval prompt is open in the Bot's chat; working again once answered", async () => {
    web = await startWebTeamHost({ fallback: model })
    const { host } = web
    await host.ctx.plugin(UserApproval, { policy: 'ask' })
    registerApprovalTool(host)
    let answer: (outcome: 'allowed-once') => void = () => {}
    const asked = new Promise<void>((resolve) => {
      host.ctx.on(
        'approval/request',
        () =>
          new Promise((done) => {
            answer = done
            resolve()
          }),
      )
    })
    const events = await stream(web)
    const main = host.ctx.botRoster.bots()[0]!
    userPrompt(await host.ctx.botRoster.agentOf(main.id), 'ASK for it')
    await asked
    const waiting = await events.until('Main', 'approval')
    expect(waiting.bots[0]).toMatchObject({ name: 'Main', status: 'approval' })
    answer('allowed-once')
    await events.until('Main', 'idle')
    await quiesce(host)
    expect((await web.send('GET', '/team')).body.bots[0].status).toBe('idle')
  })

  it("stopped after the person's stop, and after stop_bot through its notice turn; a new turn of its own ends it", async () => {
    web = await startWebTeamHost({ fallback: model })
    const { host } = web
    const slow = slowTool(host, 'until-released')
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await host.ctx.botRoster.agentOf(ada.id)
    const events = await stream(web)

    userPrompt(agent, 'SLOW one')
    await slow.running(1)
    await events.until('Ada', 'working')
    agent.cancel({ kind: 'user' } as never) // the person's stop in DSH Web (session.cancel)
    await events.until('Ada', 'stopped')

    userPrompt(agent, 'hello again') // a turn of its own (too quick to be seen working: pushes are coalesced)
    await events.until('Ada', 'idle')

    userPrompt(agent, 'SLOW two')
    await slow.running(2)
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    await host.ctx.botDelivery.stop(from(host, main.id), ada.id, 'priorities changed')
    await events.until('Ada', 'stopped')
    await quiesce(host) // the stop notice turn ran
    expect((await web.send('GET', '/team')).body.bots.find((b: any) => b.name === 'Ada').status).toBe('stopped')
    slow.release()
  })

  it('stopped while the team is paused (a hold on Bot-started work), idle again on resume', async () => {
    web = await startWebTeamHost()
    const { host } = web
    const events = await stream(web)
    await host.ctx.botPause.pause('user', 'lunch')
    await events.until('Main', 'stopped')
    await host.ctx.botPause.resume()
    await events.until('Main', 'idle')
  })
})
