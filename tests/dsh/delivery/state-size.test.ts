// Issue 9 §6: `bot/state.json` stays small whatever the traffic. 1,000 messages of the maximum size
// (MESSAGE_MAX) between two Bots, through `botDelivery.send` on the real DSH core (scripted model,
// reply_to 'user' so nothing comes back) → once all are delivered, the file is under a bound
// computed from the delivery log's limits, not from the traffic. The saves' p50/p99 at that size
// are printed for the record; timing goals live in bench/store.ts (its "after traffic" line).
// Run time: most of it is the 1,000 sends, each a locked durable save of a state of up to ~0.3 MB;
// about 25–50 s on the shared 2-core machine (the timeout leaves room for a loaded one).
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_BUDGETS } from '../../../src/core/chain.ts'
import { Config } from '../../../src/config.ts'
import { FINISHED_BODY_MAX, MESSAGE_MAX } from '../../../src/core/text-limits.ts'
import { disposedAfterEach } from '../../support/dsh-host.ts'
import { from, quiesce, team, user } from './helpers.ts'

const track = disposedAfterEach()

/** Finished delivery records kept: the plugin config's default (what `botLimits` enforces). */
const DEFAULT_KEEP_FINISHED = Config.parse({}).team.keepFinished
const MESSAGES = Number(process.env.STATE_SIZE_MESSAGES ?? 1_000)
/**
 * Messages in flight at once; then the test waits until they are delivered. (Always Ada → Bob: a
 * Bot that answered a message would send at that chain's next hop, and the hop limit is not what
 * this test is about.)
 */
const BATCH = 10
/**
 * Bob's chat continues in a new part (`openOwnChat`, as a long chat does) every PART messages, so
 * the history DSH sends with each request stays bounded and the test stays fast: what is measured
 * is team state, not the chat. Each part adds one small entry to Bob's `sessionParts`.
 */
const PART = 50

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

describe('state.json size under traffic', () => {
  it(`after ${MESSAGES} messages of ${MESSAGE_MAX} characters between two Bots, state.json is under the bound the log's limits give`, {
    timeout: 180_000,
  }, async () => {
    const host = track(await team({ ada: { fallback: { text: 'ok' } }, bob: { fallback: { text: 'ok' } } }))
    const roster = host.ctx.botRoster
    const delivery = host.ctx.botDelivery
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    const file = join(host.home, 'bot', 'state.json')
    const before = statSync(file).size

    const sends: number[] = []
    const started = performance.now()
    let opened = 0
    for (let i = 0; i < MESSAGES; i += BATCH) {
      if (i > 0 && i % PART === 0) {
        await roster.openOwnChat(bob.id)
        opened++
      }
      for (let k = i; k < Math.min(MESSAGES, i + BATCH); k++) {
        const body = `${k}:`.padEnd(MESSAGE_MAX, 'x') // maximum size, each one different
        const t = performance.now()
        await delivery.send(from(host, ada.id), { to: bob.id, kind: 'message', body, replyMode: 'user' })
        sends.push(performance.now() - t)
      }
      await quiesce(host)
    }

    const log = delivery.log()
    expect(log.filter((d) => d.kind === 'message')).toHaveLength(Math.min(MESSAGES, DEFAULT_KEEP_FINISHED))
    expect(log.every((d) => d.status === 'delivered' && [...d.body].length <= FINISHED_BODY_MAX)).toBe(true)

    // The bound: what the team had before the traffic, plus Bob's new chat parts (PART_BYTES each),
    // plus at most DEFAULT_KEEP_FINISHED (500) finished records of at most FINISHED_BODY_MAX (300)
    // characters of body (ASCII here: 1 byte each) and RECORD_FIELDS bytes of everything else (ids,
    // Session id, times, outcome, chain, JSON punctuation and the line's indent), plus at most
    // MAX_BUDGETS (200) work budgets of BUDGET_BYTES each:
    //   before + parts × 300 + 500 × (300 + 700) + 200 × 400 = before + parts × 300 + 580,000 bytes
    // (about 0.6 MB), where the traffic itself was 1,000 × 8,000 = 8,000,000 characters of body.
    const RECORD_FIELDS = 700
    const BUDGET_BYTES = 400
    // A part opened by a handoff and ended by another carries both its note and its end reason
    // (the longest: "handoff: past the hard line (N of M tokens) before a step").
    const PART_BYTES = 300
    // Bob's parts: the ones this test opened, and any the context steward opened on its own (a
    // chat of 8,000-character messages crosses its check line): each is one entry either way.
    const parts = roster.bot(bob.id)!.sessionParts.length - 1
    expect(parts).toBeGreaterThanOrEqual(opened)
    const bound = before + parts * PART_BYTES + DEFAULT_KEEP_FINISHED * (FINISHED_BODY_MAX + RECORD_FIELDS) + MAX_BUDGETS * BUDGET_BYTES
    expect(Math.max(...roster.bot(bob.id)!.sessionParts.map((p) => JSON.stringify(p).length))).toBeLessThanOrEqual(PART_BYTES)
    const size = statSync(file).size
    const recordBytes = Math.max(...log.map((d) => JSON.stringify(d).length - [...d.body].length))
    const budgetBytes = Math.max(0, ...host.ctx.botStore.state.budgets.map((b) => JSON.stringify(b).length))
    console.log(
      `state-size: messages=${MESSAGES} state_bytes=${size} bound_bytes=${bound} before_bytes=${before} records=${log.length} parts=${parts} budgets=${host.ctx.botStore.state.budgets.length} largest_record_fields=${recordBytes} largest_budget=${budgetBytes}`,
    )
    expect(recordBytes).toBeLessThanOrEqual(RECORD_FIELDS) // the per-record allowance holds (pretty-printing indents each field too)
    expect(budgetBytes).toBeLessThanOrEqual(BUDGET_BYTES)
    expect(size).toBeLessThan(bound)

    // The saves at this size, reported (not asserted: timing goals are in bench/store.ts).
    const saves: number[] = []
    for (let i = 0; i < 100; i++) {
      const t = performance.now()
      await host.ctx.botStore.update((d) => {
        d.preferences.stateSizeProbe = i
      })
      saves.push(performance.now() - t)
    }
    console.log(
      `state-size: run_s=${((performance.now() - started) / 1000).toFixed(1)} save p50_ms=${pct(saves, 50).toFixed(2)} p99_ms=${pct(saves, 99).toFixed(2)}; botDelivery.send (record saved + hand-over) p50_ms=${pct(sends, 50).toFixed(2)} p99_ms=${pct(sends, 99).toFixed(2)}`,
    )
  })
})
