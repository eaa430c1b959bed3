// One work budget per message of the person: an adversarial Main Bot that, in every turn, creates
// a group, posts to it with a report and delegates to another Bot that delegates straight back,
// terminates — within the budget — every time, and the spending is exact.
import { describe, expect, it } from 'vitest'
import { Config } from '../../../src/config.ts'
import { lastToolResults, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { from, quiesce, toolResults, turnsAtOnce, user, userPrompt } from './helpers.ts'

const track = disposedAfterEach()
const BUDGET = 8

describe('work budget', () => {
  it("an adversarial Main Bot (create a group, post with report, delegate — every turn) stops when one request's budget is spent", async () => {
    let groups = 0
    const inGroup = (req: RecordedRequest) => req.system.includes('speaking in the group')
    const main = (req: RecordedRequest): Reply => {
      if (inGroup(req)) return { text: 'noted' }
      if (lastToolResults(req).length) return { text: 'keep going' }
      const name = `G${++groups}`
      return {
        toolCalls: [
          // no admin: naming one needs a turn the person opened, and most of these turns are not
          { name: 'manage_group', args: { action: 'create', name, members: ['Main', 'Ada'] } },
          { name: 'post_to_group', args: { group: name, text: '@Ada do more', report: true } },
          { name: 'message_bot', args: { to: 'Ada', message: 'do more, then ask me again' } },
        ],
      }
    }
    const ada = (req: RecordedRequest): Reply => {
      if (inGroup(req)) return { text: 'on it' }
      if (lastToolResults(req).length) return { text: 'asked Main' }
      return { toolCalls: [{ name: 'message_bot', args: { to: 'Main', message: 'more work for you' } }] }
    }
    const host = track(
      await startTeamHost(
        { mock: { fallback: main }, ada: { fallback: ada } },
        { config: { team: { ...Config.parse({}).team, workBudget: BUDGET, maxGroups: 100, createsPerTurn: 5 } } },
      ),
    )
    await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
    const mainAgent = await host.ctx.botRoster.agentOf(host.ctx.botRoster.bots().find((b) => b.main)!.id)
    userPrompt(mainAgent, 'go')
    await quiesce(host, 60_000)

    // one budget, opened by the person's prompt, spent to its limit and not beyond (replies and
    // reports, which always arrive, may count past it; nothing the Bots send does)
    const budgets = host.ctx.botStore.state.budgets
    expect(budgets).toHaveLength(1)
    expect(budgets[0]).toMatchObject({ id: `budget:${String(mainAgent.id)}#1`, limit: BUDGET })
    const spent = budgets[0]!.used
    const forced = host.ctx.botDelivery.log().filter((d) => d.kind === 'reply').length + host.ctx.botRooms.rounds().filter((r) => r.report).length
    expect(spent).toBeGreaterThanOrEqual(BUDGET)
    expect(spent).toBeLessThanOrEqual(BUDGET + forced)
    // the refusals say why
    const refusals = [...toolResults(mainAgent), ...toolResults(await host.ctx.botRoster.agentOf('bot-2'))].filter((t) => /work budget/.test(t))
    expect(refusals.length).toBeGreaterThan(0)
    expect(refusals[0]).toMatch(/the work budget for this request is spent.*the person must ask again/)
    // every model request is one of a bounded number of turns: each Bot-started turn drew one unit
    // (two model requests each: the tool step and the answer), plus the person's own turn
    const requests = host.adapter.model.loopRequests().length
    expect(requests).toBeLessThanOrEqual(2 * (spent + 1))
    expect(
      host.ctx.botDelivery
        .log()
        .map((d) => d.kind)
        .sort(),
    ).toEqual([...Array(4).fill('message'), ...Array(4).fill('reply'), ...Array(2).fill('report')])
    expect(host.ctx.botRooms.rounds().map((r) => [r.turns.map((t) => t.outcome), r.report?.ok])).toEqual([
      [['posted'], true],
      [['posted'], true],
    ])
    expect({ spent, requests }).toEqual(EXPECTED)
  })
})

/**
 * The exact spending (deterministic: scripted model, one process; the same on every run):
 * - what was drawn: 4 messages + 4 replies + 2 member turns + 2 reports = 12. Every draw counts; the
 *   budget refused Bot sends once 8 units were used, and 4 of the 12 are replies and reports that
 *   always arrive (forced) after that — so `spent` = BUDGET + 4;
 * - model requests: the person's turn (tool step + answer) = 2, each of the 10 own-chat turns the
 *   chain opened (4 messages, 4 replies, 2 reports) = 2 × 10, each member turn (answers, no tool) = 1 × 2,
 *   so 2 + 20 + 2 = 24.
 */
const EXPECTED = { spent: BUDGET + 4, requests: 24 }

describe('Bot-started turns running at once', () => {
  it('with a cap of 2, five messages to five idle Bots run at most two turns at a time, all five in the order sent', async () => {
    const names = ['A', 'B', 'C', 'D', 'E']
    const scripts = Object.fromEntries(names.map((n) => [n.toLowerCase(), { fallback: { text: `${n} done`, delayMs: 40 } }]))
    const host = track(
      await startTeamHost({ mock: { fallback: { text: 'ok' } }, ...scripts }, { config: { team: { ...Config.parse({}).team, botTurnsAtOnce: 2 } } }),
    )
    for (const n of names) await host.ctx.botRoster.create(user, { name: n, model: `mock/${n.toLowerCase()}` })
    // count the five Bots' turns as DSH logs them
    const turns = turnsAtOnce(host, new Map(names.map((n) => [host.ctx.botRoster.find(n)!.sessionParts[0]!.sessionId, n])))
    const mainId = host.ctx.botRoster.bots().find((b) => b.main)!.id
    for (const n of names) await host.ctx.botDelivery.send(from(host, mainId), { to: n, kind: 'message', body: `job for ${n}`, replyMode: 'user' })
    await quiesce(host, 30_000)
    expect(turns.started).toEqual(names)
    expect(turns.most).toBe(2)
    expect(host.ctx.botDelivery.log().map((d) => d.status)).toEqual(Array(5).fill('delivered'))
  })
})
