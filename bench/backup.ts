// bench/backup — what a backup and a restore of a sizeable team cost, and the archive's size
// (issue 16). Corpus (seeded): BOTS Bots with PARTS own-chat parts each, TURNS real DSH turns per
// part (DSH's agent loop on the scripted model; prompts and answers of 5–200 words), written by
// DSH's JSONL persistence with its default encoding (zstd) in one home's team folder, plus a
// state.json naming them and a memory file per Bot.
//
// Side by side in one run: `backup` (takeBackup: read every Session through DSH's `inspect`,
// encode the archive) and `restore` (restoreBackup into a second home at another path: decode,
// re-write every Session through DSH's persistence, write bot/), against the floor of the same
// re-write — `create` + `append` of the same events into a third home, nothing else — so
// restore/rewrite shows what the restore adds to DSH's own writing of the logs (decoding the
// archive, DSH's workspace registry attaching each Session — one durable storage write each — and
// the durable writes of bot/). Restore and the floor alternate ROUNDS times into fresh homes; the
// medians are printed (both are fsync-bound, so the ratio moves with the disk's load).
//
// Run: node bench/backup.ts [turnsPerPart]   (default 50)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import fsp from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import LlmRuntime, { createUserMessage } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SessionPersistenceJsonl from '@deepseek-ai/dsh-session-persistence-jsonl'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import { ScriptedAdapter } from '../scripts/scripted-model/adapter.ts'
import { takeBackup } from '../src/backup/backup.ts'
import { openDshStores } from '../src/backup/dsh-runtime.ts'
import { restoreBackup } from '../src/backup/restore.ts'
import { mulberry32 } from './lib/random.ts'

const BOTS = 20
const PARTS = 2
const TURNS = Number(process.argv[2] ?? 50)
const SEED = 16
const ROUNDS = 3

const rand = mulberry32(SEED)
const WORDS = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`)
const text = () => Array.from({ length: 5 + Math.floor(rand() * 195) }, () => WORDS[Math.floor(WORDS.length * rand() ** 2)]).join(' ')

const base = mkdtempSync(join(tmpdir(), 'bench-backup-'))
const homes = ['from', 'to', 'floor'].map((n) => join(base, n, 'home'))
for (const h of homes) mkdirSync(h, { recursive: true })
const [from, to, floor] = homes as [string, string, string]
const teamFolder = join(from, 'bot', 'workspace')
mkdirSync(teamFolder, { recursive: true })

// The corpus: real DSH turns (agent loop, scripted model) in Bot Sessions working in the team folder.
const dsh = new Context()
for (const plugin of [SessionStore, LlmRuntime, ToolRuntime, AgentRegistry]) await dsh.plugin(plugin)
await dsh.plugin(SystemPrompt, { persona: 'You are a Bot.' })
await dsh.plugin(AgentLoop, { agents: [] })
await dsh.plugin(SessionPersistenceJsonl, { root: join(from, 'sessions'), writeBatchMaxDelayMs: 1 })
dsh.llm.registerAdapter(['mock'], new ScriptedAdapter({ fallback: () => ({ text: text() }) }))
const ids: string[] = []
const bots: Record<string, unknown> = {}
for (let b = 0; b < BOTS; b++) {
  const parts = []
  for (let p = 0; p < PARTS; p++) {
    const id = `session-bench-${b}-${p}`
    const { agent } = await dsh.agents.create({ sessionId: SessionId(id), meta: { cwd: teamFolder }, agentOptions: { provider: 'mock', model: 'mock' } })
    for (let turn = 0; turn < TURNS; turn++) {
      agent.followup(createUserMessage({ content: [{ type: 'text', text: text() }], source: { kind: 'user' } }))
      await agent.whenIdle()
    }
    await dsh.sessions.flush(agent.session)
    ids.push(id)
    parts.push({ sessionId: id })
  }
  bots[`bot-${b}`] = { id: `bot-${b}`, name: `Bot${b}`, sessionParts: parts }
  mkdirSync(join(from, 'bot', 'memory', 'bots', `bot-${b}`), { recursive: true })
  await fsp.writeFile(join(from, 'bot', 'memory', 'bots', `bot-${b}`, 'MEMORY.md'), Array.from({ length: 30 }, () => `- ${text().slice(0, 200)}`).join('\n'))
}
await dsh.fiber.dispose()
await fsp.writeFile(join(from, 'bot', 'state.json'), JSON.stringify({ version: 2, revision: 1, bots }))
const source = await openDshStores(from, { compression: 'zstd' })
const logs = await Promise.all(ids.map((id) => source.sessions.inspect(id)))
let logBytes = 0
for (const project of await fsp.readdir(join(from, 'sessions'))) {
  for (const id of await fsp.readdir(join(from, 'sessions', project)))
    logBytes += (await fsp.stat(join(from, 'sessions', project, id, 'session.jsonl.zstd'))).size
}

// Side by side: backup, restore, and the bare re-write floor.
let t = performance.now()
const { archive, manifest } = await takeBackup({ home: from, sessions: source.sessions })
const backupMs = performance.now() - t
await source.close()

// Restore and the bare re-write alternate ROUNDS times (each into a fresh home); medians are printed.
const restoreRuns: number[] = []
const floorRuns: number[] = []
let report!: Awaited<ReturnType<typeof restoreBackup>>
for (let round = 0; round < ROUNDS; round++) {
  const toHome = join(to, `r${round}`)
  mkdirSync(toHome, { recursive: true })
  const target = await openDshStores(toHome, { compression: 'zstd', workspaces: true })
  t = performance.now()
  report = await restoreBackup({ archive, home: toHome, sessions: target.sessions, ...(target.workspaces ? { workspaces: target.workspaces } : {}) })
  restoreRuns.push(performance.now() - t)
  await target.close()

  const floorHome = join(floor, `r${round}`)
  mkdirSync(floorHome, { recursive: true })
  const bare = await openDshStores(floorHome, { compression: 'zstd' })
  t = performance.now()
  for (const log of logs) {
    await bare.sessions.create({ ...log.meta, cwd: join(floorHome, 'bot', 'workspace') })
    for (let i = 0; i < log.events.length; i += 500) await bare.sessions.append((log.meta as { id: string }).id, log.events.slice(i, i + 500))
  }
  floorRuns.push(performance.now() - t)
  await bare.close()
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const restoreMs = median(restoreRuns)
const floorMs = median(floorRuns)
rmSync(base, { recursive: true, force: true })

if (report.sessions !== logs.length || manifest.sessions.length !== logs.length) throw new Error('not every Session went through')
console.log(`corpus: ${BOTS} Bots × ${PARTS} parts × ${TURNS} turns = ${report.events} events; Session logs on disk (zstd) ${logBytes} bytes`)
console.log(
  `bench backup: sessions=${report.sessions} events=${report.events} archive_bytes=${archive.byteLength} archive/logs=${(archive.byteLength / logBytes).toFixed(2)} backup_ms=${backupMs.toFixed(0)} restore_ms=${restoreMs.toFixed(0)} rewrite_floor_ms=${floorMs.toFixed(0)} restore/rewrite=${(restoreMs / floorMs).toFixed(2)}`,
)
