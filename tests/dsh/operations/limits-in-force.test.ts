// One source of the limits in force, on the real DSH core, in-process: every limit, changed the way
// Team settings change it (`botLimits.set`, with `mayRaise` where the change raises), is the value
// the service that enforces it uses at its next check. Each row picks a value whose effect differs
// from the config's, so it fails if that service kept a limit of its own. (The HTTP route on top of
// `set` — pairing, 400s, a hop limit lowered twice — is tests/dsh/operations/limits.test.ts.)
import { describe, expect, it } from 'vitest'
import {
  lastToolResults,
  offersTool,
  userTextsSinceLastAssistant,
  type RecordedRequest,
  type Reply,
  type Rule,
  type ScriptMap,
  type ToolCallSpec,
} from '../../../scripts/scripted-model/format.ts'
import { LIMIT_KEYS, type LimitKey } from '../../../src/core/limits.ts'
import type * as botTeam from '../../../src/index.ts'
import { disposedAfterEach, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { from, quiesce, toolResults, turnsAtOnce, user, userPrompt } from '../delivery/helpers.ts'
import { bots, roomLog, say } from '../rooms/helpers.ts'
import { taskWhere } from '../tasks/helpers.ts'
import { advance, FakeClock } from './fake-clock.ts'

const track = disposedAfterEach()
const said = (req: RecordedRequest) => userTextsSinceLastAssistant(req).join('\n')

/** A Main Bot that, when the person says "go", makes `calls` in one step, then answers. */
const mainCalls =
  (calls: ToolCallSpec[]): Rule =>
  (req): Reply =>
    lastToolResults(req).length ? { text: 'done' } : said(req).includes('go') ? { toolCalls: calls } : { text: 'ok' }
const send = (to: string): ToolCallSpec => ({ name: 'message_bot', args: { to, message: `work for ${to}`, reply_to: 'user' } })
const mainId = (host: DshHost) => host.ctx.botRoster.bots().find((b) => b.main)!.id
const mainAgent = async (host: DshHost) => host.ctx.botRoster.agentOf(mainId(host))
/** The Main Bot messages Ada and Bob in one step when the person says "go". */
const toBoth: ScriptMap = { mock: { fallback: mainCalls([send('Ada'), send('Bob')]) } }
/** Ada and Bob join; the person says "go" to the Main Bot (`toBoth`): what its two message_bot calls answered. */
async function sentToBoth(host: DshHost): Promise<string[]> {
  await bots(host, ['Ada', 'Bob'])
  userPrompt(await mainAgent(host), 'go')
  await quiesce(host)
  return toolResults(await mainAgent(host), 'message_bot')
}

/** Ada and Bob, and group G of the two (Ada its admin), each answering a member turn with `reply`. */
async function groupG(host: DshHost): Promise<string> {
  await bots(host, ['Ada', 'Bob'])
  return (await host.ctx.botRooms.createGroup(user, { name: 'G', members: ['Ada', 'Bob'], admin: 'Ada' })).id
}
const members = (ada: Rule, bob: Rule): ScriptMap => ({ ada: { fallback: ada }, bob: { fallback: bob } })
/** Ada and Bob always hand the word to each other: only the round limits end a round. */
const pingPong = members(
  () => ({ text: '@Bob your turn' }),
  () => ({ text: '@Ada your turn' }),
)
/** Who spoke in the last round, by name. */
const lastRound = (host: DshHost) =>
  host.ctx.botRooms
    .rounds()
    .at(-1)!
    .turns.map((t) => host.ctx.botRoster.bot(t.botId)!.name)
/** What Bob was shown in his last member turn. */
const bobSaw = (host: DshHost) =>
  JSON.stringify(
    host.adapter.model
      .loopRequests()
      .filter((r) => r.model === 'bob')
      .at(-1)!.messages,
  )

interface Row {
  limit: LimitKey
  to: number
  /** The service that enforces it, and what it does with the value. */
  by: string
  script?: ScriptMap
  /** Plugin config (the value the override replaces, where a row raises one). */
  config?: Partial<botTeam.Config>
  clock?: FakeClock
  prove(host: DshHost): Promise<void>
}

const START = '2026-03-02T08:00:00.000Z'

const rows: Row[] = [
  {
    limit: 'hopLimit',
    to: 1,
    by: 'delivery: a message sent from a turn at hop 1 is refused',
    script: {
      ada: {
        fallback: (req) =>
          lastToolResults(req).length ? { text: 'stopped' } : said(req).includes('[Message from') ? { toolCalls: [send('Bob')] } : { text: 'ok' },
      },
    },
    async prove(host) {
      const ids = await bots(host, ['Ada', 'Bob'])
      await host.ctx.botDelivery.send(from(host, mainId(host)), { to: 'Ada', kind: 'message', body: 'pass it on', replyMode: 'user' })
      await quiesce(host)
      expect(toolResults(await host.ctx.botRoster.agentOf(ids.Ada!), 'message_bot')).toEqual([
        expect.stringMatching(/^Refused: Not sent: the hop limit \(1\) is reached/),
      ])
      expect(host.ctx.botDelivery.log().map((d) => d.hop)).toEqual([1])
    },
  },
  {
    limit: 'sendsPerTurn',
    to: 1,
    by: 'delivery: the second message_bot of one turn is refused',
    script: toBoth,
    async prove(host) {
      expect((await sentToBoth(host))[1]).toMatch(/^Refused: Not sent: one turn may send at most 1 Bot messages, and this turn already sent 1\./)
      expect(host.ctx.botDelivery.log()).toHaveLength(1)
    },
  },
  {
    limit: 'workBudget',
    to: 1,
    by: "delivery: the person's message opens a budget of 1; the second message is refused",
    script: toBoth,
    async prove(host) {
      expect((await sentToBoth(host))[1]).toMatch(/^Refused: .*the work budget for this request is spent: the Bots already ran 1 of 1 turns/)
      expect(host.ctx.botStore.state.budgets.map((b) => b.limit)).toEqual([1])
    },
  },
  {
    limit: 'workBudget',
    to: 1,
    by: "rooms: the person's post opens a budget of 1; the second member turn fails",
    script: members(
      () => ({ text: 'Ada here' }),
      () => ({ text: 'Bob here' }),
    ),
    async prove(host) {
      const g = await groupG(host)
      await say(host, 'G', '@Ada @Bob both of you, please')
      expect(host.ctx.botStore.state.budgets.filter((b) => b.origin === g).map((b) => b.limit)).toEqual([1])
      expect(
        host.ctx.botRooms
          .rounds()
          .at(-1)!
          .turns.map((t) => t.outcome),
      ).toEqual(['posted', 'failed'])
    },
  },
  {
    limit: 'workBudget',
    to: 7,
    by: "schedules: a task's run opens its own budget of 7",
    clock: new FakeClock(START),
    async prove(host) {
      await host.ctx.botRoster.create(user, { name: 'Ada' })
      await host.ctx.botSchedules.create(user, { bot: 'Ada', prompt: 'check the build', every_minutes: 30 })
      await advance(host, this.clock!, 30 * 60_000)
      expect(host.ctx.botStore.state.budgets.find((b) => b.id === 'budget:schedule-1#1')).toMatchObject({ openedBy: 'schedule-1', limit: 7 })
    },
  },
  {
    limit: 'maxBots',
    to: 1,
    by: 'roster: with the Main Bot the team is full',
    async prove(host) {
      await expect(host.ctx.botRoster.create(user, { name: 'Ada' })).rejects.toThrow(/^The Bot was not created: the team already has 1 Bots \(limit 1\)/)
    },
  },
  {
    limit: 'maxBots',
    to: 2,
    by: "roster: raised over the config's 1, a second Bot may be created",
    config: { team: { maxBots: 1 } as botTeam.Config['team'] },
    async prove(host) {
      await expect(host.ctx.botRoster.create(user, { name: 'Ada' })).resolves.toMatchObject({ name: 'Ada' })
      await expect(host.ctx.botRoster.create(user, { name: 'Bob' })).rejects.toThrow(/\(limit 2\)/)
    },
  },
  {
    limit: 'maxGroups',
    to: 1,
    by: 'rooms: a second group is refused',
    async prove(host) {
      await groupG(host)
      await expect(host.ctx.botRooms.createGroup(user, { name: 'H', members: ['Ada', 'Bob'] })).rejects.toThrow(
        /^The group was not created: the team already has 1 groups \(limit 1\)/,
      )
    },
  },
  {
    limit: 'createsPerTurn',
    to: 1,
    by: 'roster: the second group created in one turn is refused',
    script: {
      mock: {
        fallback: mainCalls([
          { name: 'manage_group', args: { action: 'create', name: 'G1', members: ['Main', 'Ada'] } },
          { name: 'manage_group', args: { action: 'create', name: 'G2', members: ['Main', 'Ada'] } },
        ]),
      },
    },
    async prove(host) {
      await bots(host, ['Ada'])
      userPrompt(await mainAgent(host), 'go')
      await quiesce(host)
      expect(toolResults(await mainAgent(host), 'manage_group')[1]).toMatch(
        /^Refused: One turn may create at most 1 Bots and groups, and this turn already created 1/,
      )
      expect(host.ctx.botRooms.groups().map((g) => g.name)).toEqual(['G1'])
    },
  },
  {
    limit: 'botTurnsAtOnce',
    to: 1,
    by: 'delivery: two messages to two idle Bots run one after the other',
    script: members({ text: 'Ada done', delayMs: 100 }, { text: 'Bob done', delayMs: 100 }),
    async prove(host) {
      const ids = await bots(host, ['Ada', 'Bob'])
      const turns = turnsAtOnce(host, new Map(Object.entries(ids).map(([name, id]) => [host.ctx.botRoster.bot(id)!.sessionParts[0]!.sessionId, name])))
      for (const to of ['Ada', 'Bob']) await host.ctx.botDelivery.send(from(host, mainId(host)), { to, kind: 'message', body: 'a job', replyMode: 'user' })
      await quiesce(host)
      expect(turns.started).toEqual(['Ada', 'Bob'])
      expect(turns.most).toBe(1)
    },
  },
  {
    limit: 'keepFinished',
    to: 1,
    by: 'delivery: the log keeps one finished record',
    async prove(host) {
      await bots(host, ['Ada'])
      for (const body of ['one', 'two']) {
        await host.ctx.botDelivery.send(from(host, mainId(host)), { to: 'Ada', kind: 'message', body, replyMode: 'user' })
        await quiesce(host)
      }
      expect(host.ctx.botDelivery.log().map((d) => [d.body, d.status])).toEqual([['two', 'delivered']])
    },
  },
  {
    limit: 'extraTurns',
    to: 0,
    by: 'rooms: a round of two members has two turns',
    script: pingPong,
    async prove(host) {
      await groupG(host)
      await say(host, 'G', '@Bob start')
      expect(lastRound(host)).toEqual(['Bob', 'Ada'])
    },
  },
  {
    limit: 'extraTurns',
    to: 2,
    by: "rooms: raised over the config's 0, a round of two members has four turns",
    config: { rooms: { limits: { extraTurns: 0 } } },
    script: pingPong,
    async prove(host) {
      await groupG(host)
      await say(host, 'G', '@Bob start')
      expect(lastRound(host)).toEqual(['Bob', 'Ada', 'Bob', 'Ada'])
    },
  },
  {
    limit: 'callsPerMember',
    to: 1,
    by: 'rooms: Bob, a member, is called once',
    script: pingPong,
    async prove(host) {
      await groupG(host)
      await say(host, 'G', '@Bob start')
      expect(lastRound(host)).toEqual(['Bob', 'Ada'])
    },
  },
  {
    limit: 'callsPerAdmin',
    to: 1,
    by: 'rooms: Ada, the admin, is called once',
    script: pingPong,
    async prove(host) {
      await groupG(host)
      await say(host, 'G', '@Bob start')
      expect(lastRound(host)).toEqual(['Bob', 'Ada', 'Bob'])
    },
  },
  {
    limit: 'botRoundsPerUserMessage',
    to: 0,
    by: 'rooms: a Bot may start no round before the person writes',
    async prove(host) {
      await groupG(host)
      await expect(host.ctx.botRooms.post(from(host, mainId(host)), 'G', 'a round, please')).rejects.toThrow(
        /^Bots have started 0 rounds in group G since the user last wrote there \(limit 0\)/,
      )
    },
  },
  {
    limit: 'taskLeaseMs',
    to: 60_000,
    by: 'tasks: an attempt whose turn takes no step for 61 s ends as lease-expired (the config says 30 min)',
    clock: new FakeClock(START),
    script: { ada: { fallback: (req) => (offersTool(req, 'submit_task') ? { fail: 'stall' } : { text: 'ok' }) } },
    async prove(host) {
      await bots(host, ['Ada'])
      const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'Build it.', assignee: 'Ada' }] })
      await taskWhere(host, ids[0]!, (t) => t.status === 'working')
      await host.ctx.botTasks.settled()
      this.clock!.advance(61_000)
      const task = await taskWhere(host, ids[0]!, (t) => t.attempts[0]?.outcome !== null && t.attempts[0]?.outcome !== undefined)
      expect(task.attempts[0]).toMatchObject({ outcome: 'lease-expired', reason: 'the lease ran out' })
    },
  },
  {
    limit: 'turnTimeoutMs',
    to: 300,
    by: 'rooms: a member who takes 3 s is marked missed after 0.3 s',
    script: members({ text: 'too late', delayMs: 3_000 }, { text: 'ok' }),
    async prove(host) {
      await groupG(host)
      await say(host, 'G', '@Ada quick')
      expect(
        host.ctx.botRooms
          .rounds()
          .at(-1)!
          .turns.map((t) => t.outcome),
      ).toEqual(['missed'])
      expect(roomLog(host, 'G')).toContain('Ada did not answer within 0.3 s and was marked missed.')
    },
  },
  {
    limit: 'windowPosts',
    to: 1,
    by: 'rooms: a member is shown only the newest post',
    script: members(
      () => ({ text: 'noted' }),
      () => ({ text: 'noted' }),
    ),
    async prove(host) {
      await groupG(host)
      await say(host, 'G', '@Ada OLDER-POST')
      await say(host, 'G', '@Bob NEWEST-POST')
      expect(bobSaw(host)).toContain('NEWEST-POST')
      expect(bobSaw(host)).not.toContain('OLDER-POST')
    },
  },
  {
    limit: 'windowPostChars',
    to: 100,
    by: "rooms: a long post is cut at 100 characters in a member's window",
    script: members(
      () => ({ text: 'noted' }),
      () => ({ text: 'noted' }),
    ),
    async prove(host) {
      await groupG(host)
      await say(host, 'G', `@Bob ${'x'.repeat(300)} TAIL-OF-POST`)
      expect(bobSaw(host)).toContain('… (cut)')
      expect(bobSaw(host)).not.toContain('TAIL-OF-POST')
    },
  },
]

describe('every limit changed in Team settings is the one its service enforces (botLimits.set)', () => {
  it('the table below has a row for every limit', () => {
    expect([...new Set(rows.map((r) => r.limit))].sort()).toEqual([...LIMIT_KEYS].sort())
  })

  it.each(rows)('$limit → $to: $by', async (row) => {
    const ok = { fallback: { text: 'ok' } }
    const host = track(
      await startTeamHost(
        { mock: ok, ada: ok, bob: ok, ...row.script },
        { ...(row.config ? { config: row.config } : {}), ...(row.clock ? { clock: row.clock } : {}) },
      ),
    )
    await host.ctx.botDelivery.ready
    const patch = { [row.limit]: row.to }
    const raises = host.ctx.botLimits.raises(patch).length > 0
    expect({ raises }).toEqual({ raises: row.config !== undefined }) // rows with a config of their own raise it; the others lower a default
    const view = await host.ctx.botLimits.set(patch, { mayRaise: raises })
    expect(view.limits[row.limit]).toBe(row.to)
    expect(view.config[row.limit]).not.toBe(row.to)
    await row.prove.call(row, host)
  })
})
