// botUsage on the real DSH core, in-process: every model request of a Bot Session (own chat, group
// member turn) and the memory review side call land in bot/usage.sqlite with the provider's token
// counts; side calls are metered on llm/stream; views group them; a ledger rebuilt from the Session
// logs holds the same loop rows; without SQLite the ledger is off and the caps still count.
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { SessionId } from '@deepseek-ai/dsh-session'
import { describe, expect, it } from 'vitest'
import type { Script } from '../../../scripts/scripted-model/format.ts'
import { disposedAfterEach, prompt, startTeamHost, type TeamHostOptions } from '../../support/dsh-host.ts'
import { BotUsage } from '../../../src/usage/service.ts'
import { tagSideCall } from '../../../src/dsh/side-call.ts'
import { bots, say, team as roomsTeam } from '../rooms/helpers.ts'

const track = disposedAfterEach()
const team = async (script: Script, opts: TeamHostOptions = {}) => track(await startTeamHost(script, opts))
const user = { kind: 'user' } as const
const strip = (rows: Array<Record<string, unknown>>) => rows.map(({ key, requests, input, cached, output }) => ({ key, requests, input, cached, output }))

describe('usage ledger (in-process DSH)', () => {
  it("records each loop step of a Bot turn with the provider's uncached / cached / output tokens, by Bot, model, purpose and day", async () => {
    const host = await team({
      steps: [
        { toolCalls: [{ name: 'list_bots', args: {} }], usage: { input: 120, cached: 800, output: 30 } },
        { text: 'done', usage: { input: 40, cached: 900, output: 12 } },
      ],
      fallback: { text: 'ok', usage: { input: 1, output: 1 } },
      review: { text: '{"changes":[]}', usage: { input: 200, cached: 0, output: 9 } },
    })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    await prompt(host, await host.ctx.botRoster.agentOf(ada.id), 'list the team')
    await host.ctx.botMemory.settled()
    const usage = host.ctx.botUsage
    expect(statSync(join(host.home, 'bot', 'usage.sqlite')).mode & 0o777).toBe(0o600)
    expect(strip(usage.view('purpose').rows)).toEqual([
      { key: 'memory-review', requests: 1, input: 200, cached: 0, output: 9 },
      { key: 'turn', requests: 2, input: 160, cached: 1700, output: 42 },
    ])
    expect(strip(usage.view('bot').rows)).toEqual([{ key: ada.id, requests: 3, input: 360, cached: 1700, output: 51 }])
    expect(strip(usage.view('model').rows)).toEqual([{ key: 'mock/mock', requests: 3, input: 360, cached: 1700, output: 51 }])
    const today = usage.today()
    expect(strip(usage.view('day').rows)).toEqual([{ key: today.day, requests: 3, input: 360, cached: 1700, output: 51 }])
    expect(usage.view('hour').rows[0]!.key).toMatch(new RegExp(`^${today.day}T\\d\\d$`))
    expect(today.bots.find((b) => b.id === ada.id)).toMatchObject({ tokens: 360 + 1700 + 51, money: 0, reached: false })
    expect(usage.status()).toMatchObject({ rows: 3, pending: 0 })
  })

  it('prices entered by the person turn tokens into money per model; a model without a price is named as unpriced', async () => {
    const host = await team({ steps: [{ text: 'a', usage: { input: 1_000_000, cached: 2_000_000, output: 500_000 } }], fallback: { text: 'ok' } })
    const main = host.ctx.botRoster.bots().find((b) => b.main)!
    await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'hi')
    await host.ctx.botMemory.settled()
    expect(host.ctx.botUsage.view('model').rows[0]).not.toHaveProperty('money')
    await host.ctx.botUsage.configure({ currency: 'USD', prices: { 'mock/mock': { input: 0.5, cached: 0.1, output: 2 } } })
    const [row] = host.ctx.botUsage.view('purpose', {}).rows.filter((r) => r.key === 'turn')
    expect(row!.money).toBeCloseTo(0.5 + 0.2 + 1, 6)
    await host.ctx.botUsage.configure({ prices: { 'other/model': { input: 1, cached: 1, output: 1 } } })
    expect(host.ctx.botUsage.view('purpose').rows.find((r) => r.key === 'turn')).toMatchObject({ money: 0, unpriced: ['mock/mock'] })
  })

  it("a member's turn in a group is recorded as room-turn under the Bot and the group; the room itself makes no request", async () => {
    const host = track(
      await roomsTeam({
        bob: { text: 'Bob here', usage: { input: 70, cached: 5, output: 8 } },
        cy: { text: 'Cy here', usage: { input: 1, cached: 1, output: 1 } },
      }),
    )
    const { Bob, Cy } = await bots(host, ['Bob', 'Cy'])
    const group = await host.ctx.botRooms.createGroup(user, { name: 'Team', members: [Bob!, Cy!] })
    await say(host, 'Team', '@Bob hello')
    host.ctx.botUsage.flush()
    expect(host.ctx.botUsage.view('purpose', { group: group.id }).rows.map((r) => r.key)).toEqual(['room-turn'])
    expect(host.ctx.botUsage.view('purpose').rows.map((r) => r.key)).toEqual(['room-turn'])
    expect(strip(host.ctx.botUsage.view('bot', { group: group.id }).rows.filter((r) => r.key === Bob))).toEqual([
      { key: Bob, requests: 1, input: 70, cached: 5, output: 8 },
    ])
    expect(host.ctx.botUsage.view('group').rows.map((r) => r.key)).toEqual([group.id])
  })

  it('meters side calls on llm/stream: a title call for a Bot Session and a call tagged with tagSideCall() are recorded; an untagged call and a Session not of the team are not', async () => {
    const host = await team({ fallback: { text: 'ok', usage: { input: 9, output: 2 } }, title: 'A title' })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    const adaSession = ada.sessionParts.at(-1)!.sessionId
    const call = async (options: Parameters<typeof host.ctx.llm.stream>[0]) => {
      for await (const _ of host.ctx.llm.stream(options)) {
        /* drain */
      }
    }
    const base = { provider: 'mock', model: 'mock', messages: [] }
    await call({ ...base, system: 'Create a concise title for this chat.', purpose: 'session-title', sessionId: SessionId(adaSession) })
    await call({ ...base, system: 'Create a concise title for this chat.', purpose: 'session-title', sessionId: SessionId('not-a-team-session') })
    await call(tagSideCall({ ...base, system: 'Summarise.' }, { purpose: 'steward', bot: ada.id, part: 1 }))
    await call({ ...base, system: 'Untagged.' })
    host.ctx.botUsage.flush()
    expect(strip(host.ctx.botUsage.view('purpose').rows)).toEqual([
      { key: 'steward', requests: 1, input: expect.any(Number), cached: 0, output: expect.any(Number) },
      { key: 'title', requests: 1, input: 20, cached: 0, output: 3 },
    ])
    expect(host.ctx.botUsage.view('bot').rows.map((r) => [r.key, r.requests])).toEqual([[ada.id, 2]])
  })

  it('rebuild re-derives the loop rows from the Session logs: a team that ran with the ledger off gets the same rows, and a second rebuild adds none', async () => {
    const script: Script = {
      steps: [
        { text: 'one', usage: { input: 11, cached: 22, output: 3 } },
        { text: 'two', usage: { input: 13, cached: 24, output: 4 } },
      ],
      fallback: { text: 'ok' },
    }
    const first = await team(script, { config: { usage: { enabled: false, flushMs: 1000 } } })
    const home = first.home
    expect(first.ctx.get('botUsage')).toBeUndefined()
    const ada = await first.ctx.botRoster.create(user, { name: 'Ada' })
    const agent = await first.ctx.botRoster.agentOf(ada.id)
    await prompt(first, agent, 'one')
    await prompt(first, agent, 'two')
    await first.ctx.botMemory.settled()
    await first.ctx.fiber.dispose()
    const second = await team({ fallback: { text: 'ok' } }, { home })
    expect(second.ctx.botUsage.status().rows).toBe(0)
    expect(await second.ctx.botUsage.rebuild()).toBe(2)
    expect(strip(second.ctx.botUsage.view('bot').rows)).toEqual([{ key: ada.id, requests: 2, input: 24, cached: 46, output: 7 }])
    await second.ctx.botUsage.rebuild()
    expect(second.ctx.botUsage.status().rows).toBe(2)
  })
})

describe('usage ledger without SQLite (in-process DSH)', () => {
  it('with no usable driver the ledger is off (status says why, views refuse, nothing on disk) while the caps still count the day', async () => {
    const host = await team({ fallback: { text: 'ok', usage: { input: 300, output: 10 } } }, { config: { usage: { enabled: false, flushMs: 1000 } } })
    const missing = () => {
      throw new Error('Could not locate the bindings file. Tried: …/better_sqlite3.node')
    }
    await host.ctx.plugin(BotUsage, {
      dir: join(host.home, 'bot'),
      prefer: 'auto',
      loadBetterSqlite: missing,
      loadNodeSqlite: () => {
        throw new Error('No such built-in module: node:sqlite')
      },
    })
    const usage = host.ctx.botUsage
    expect(usage.status()).toMatchObject({
      driver: 'unavailable',
      problem: { kind: 'missing-binding', message: expect.stringMatching(/rebuild better-sqlite3/) },
    })
    const ada = await host.ctx.botRoster.create(user, { name: 'Ada' })
    await host.ctx.botUsage.configure({ caps: { bots: { [ada.id]: { tokens: 100 } } } })
    await prompt(host, await host.ctx.botRoster.agentOf(ada.id), 'hello')
    expect(usage.capReached(ada.id)).toBe(true)
    expect(() => usage.view('bot')).toThrow(/the usage ledger is off/)
    expect(existsSync(join(host.home, 'bot', 'usage.sqlite'))).toBe(false)
  })
})
