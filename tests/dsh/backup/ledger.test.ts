// The restored task ledger as this build reads it (real files, real DSH runtime for the archive):
// a ledger the 0.3 release wrote (format 1) comes back upgraded and carrying no decision, each
// asking Bot told once, however many tasks it holds — the questions team state still lists for the
// ledger (a v5 file's `ledgerImport`) too; an archive whose ledger a newer build wrote, or one that
// cannot be carried over, is refused before anything is written.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, it, vi } from 'vitest'
import { takeBackup, type SessionReader } from '../../../src/backup/backup.ts'
import { openDshStores } from '../../../src/backup/dsh-runtime.ts'
import { decodeArchive, encodeArchive } from '../../../src/backup/format.ts'
import { restoreLedger } from '../../../src/backup/ledger.ts'
import { LEDGER_STAGING, restoreBackup } from '../../../src/backup/restore.ts'
import { TASKS_FORMAT } from '../../../src/tasks/journal.ts'
import { TaskStore } from '../../../src/tasks/store.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { largeFormat1Ledger } from '../../support/format1-ledger.ts'
import { tempDir } from '../../support/temp-dir.ts'
import { calm, submits, taskTeam, user } from '../tasks/helpers.ts'

const track = disposedAfterEach()
afterEach(() => vi.restoreAllMocks())

/** An archive of a one-Bot team that worked on a task (its Sessions), whose `bot/tasks/` is a format-1 ledger of `grants` unused grants. */
async function archiveWithLargeLedger(grants: number): Promise<Uint8Array> {
  const { host } = await taskTeam(['Ada'], { Ada: submits })
  track(host)
  await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'x', assignee: 'Ada' }] })
  await calm(host)
  const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  await host.dispose()
  const big = join(tempDir('bot-team-ledger-large-'), 'tasks')
  await largeFormat1Ledger(big, grants)
  return encodeArchive([
    ...decodeArchive(archive).filter((e) => !e.path.startsWith('bot/tasks/')),
    ...['snapshot.jsonl', 'journal.jsonl'].map((f) => ({ path: `bot/tasks/${f}`, data: readFileSync(join(big, f)) })),
  ])
}

it('refuses, writing nothing, an archive whose ledger a newer build wrote (it could not carry it over)', async () => {
  const { host } = await taskTeam(['Ada'], { Ada: submits })
  track(host)
  await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'x', assignee: 'Ada' }] })
  await calm(host)
  const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  const newer = encodeArchive(
    decodeArchive(archive).map((e) =>
      e.path === 'bot/tasks/journal.jsonl'
        ? {
            path: e.path,
            data: Buffer.from(
              Buffer.from(e.data)
                .toString('utf8')
                .replace(/^\{"v":\d+/, `{"v":${TASKS_FORMAT + 1}`),
            ),
          }
        : e,
    ),
  )
  const home = join(tempDir('bot-team-ledger-newer-'), 'home')
  mkdirSync(home)
  const stores = await openDshStores(home, { compression: 'none' })
  await expect(restoreBackup({ archive: newer, home, sessions: stores.sessions })).rejects.toThrow(
    new RegExp(`task ledger \\(bot/tasks/journal\\.jsonl\\) is format ${TASKS_FORMAT + 1}, newer than this build's ${TASKS_FORMAT}.*Nothing was restored\\.$`),
  )
  expect(await stores.sessions.list()).toEqual([])
  await stores.close()
  expect(existsSync(join(home, 'bot'))).toBe(false)
})

it('carries over the 09edfa6 ledger (format 1) with no decision: upgraded, then its allow, its waiting approval and question and its undelivered answer cancelled, each told in the words of its kind', async () => {
  const dir = join(tempDir('bot-team-ledger-v1-restore-'), 'tasks')
  mkdirSync(dir, { mode: 0o700 })
  copyFileSync(fileURLToPath(new URL('../../fixtures/team-v6-09edfa6/tasks/journal.jsonl', import.meta.url)), join(dir, 'journal.jsonl'))
  const said = await restoreLedger(dir, { nameOf: (id) => ({ 'bot-2': 'Ada' })[id] })
  expect(said).toEqual([
    "task-1: the allow of Ada's approval of needs_approval was cancelled unused",
    "task-2: Ada's approval of needs_approval, still waiting, was cancelled",
    "task-3: Ada's question, still waiting, was cancelled",
    "task-4: the answer to Ada's question, not yet delivered, was cancelled",
  ])
  const store = await TaskStore.open({ dir, mayWrite: () => false })
  try {
    expect([...store.board.all()].slice(0, 4).map((t) => t.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled'])
    expect(store.pending().filter((i) => i.kind === 'answer')).toEqual([])
    const tells = store.pending().flatMap((i) => (i.kind === 'tell' ? [i] : []))
    expect(tells.map((i) => [i.taskId, i.botId])).toEqual([['task-1', 'bot-2']])
    expect(tells[0]!.text).toMatch(
      /Cancelled: the user's allow of needs_approval \(call call_0_0\) .* \(task-1\), which never ran; your approval task-2 .*; your question task-3 .*; the user's answer to your question task-4/,
    )
  } finally {
    await store.close()
  }
})

it('restores an archive whose ledger holds more than one record can change (2,500 unused grants): every grant comes back cancelled, the report names 100 and counts the rest', async () => {
  const archive = await archiveWithLargeLedger(2_500)
  const home = join(tempDir('bot-team-ledger-large-home-'), 'home')
  mkdirSync(home)
  const stores = await openDshStores(home, { compression: 'none', workspaces: true })
  const report = await restoreBackup({ archive, home, sessions: stores.sessions, workspaces: stores.workspaces! })
  await stores.close()
  expect([report.cancelled.length, report.cancelled.at(-1)]).toEqual([101, 'and 2400 more tasks'])
  expect([existsSync(join(home, 'bot', 'state.json')), existsSync(join(home, LEDGER_STAGING))]).toEqual([true, false])
  const store = await TaskStore.open({ dir: join(home, 'bot', 'tasks'), mayWrite: () => false })
  try {
    const tasks = [...store.board.all()]
    expect([tasks.length, tasks.filter((t) => t.ask?.grant?.cancelled && t.status === 'cancelled').length]).toEqual([2_500, 2_500])
    expect(store.pending().filter((i) => i.kind === 'answer' && i.grant)).toEqual([])
  } finally {
    await store.close()
  }
})

it('a ledger that cannot be carried over leaves the new home as it was (no Session, no bot/, no staging folder); the same archive restores once it can be', async () => {
  const archive = await archiveWithLargeLedger(10)
  const home = join(tempDir('bot-team-ledger-failed-'), 'home')
  mkdirSync(home)
  const stores = await openDshStores(home, { compression: 'none', workspaces: true })
  // the disk fills up as the carried-over ledger is compacted
  vi.spyOn(TaskStore.prototype, 'compact').mockRejectedValueOnce(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))
  const sessions = JSON.parse(Buffer.from(decodeArchive(archive).find((e) => e.path === 'manifest.json')!.data).toString('utf8')).sessions.length
  expect(sessions).toBeGreaterThan(0)
  const failed = await restoreBackup({ archive, home, sessions: stores.sessions, workspaces: stores.workspaces! }).then(
    () => undefined,
    (e: Error) => e.message,
  )
  expect([await stores.sessions.list(), readdirSync(home).filter((f) => f === 'bot' || f === LEDGER_STAGING)]).toEqual([[], []])
  expect(failed).toBe("the archive's task ledger could not be carried over: ENOSPC: no space left on device. Nothing was restored.")
  const report = await restoreBackup({ archive, home, sessions: stores.sessions, workspaces: stores.workspaces! })
  await stores.close()
  expect([report.sessions, report.cancelled.length, existsSync(join(home, 'bot', 'state.json'))]).toEqual([sessions, 10, true])
})

it("brings back none of the questions team state still lists for the ledger (a v5 file's ledgerImport) waiting: each comes back cancelled, the asking Bot told, the report naming it, and team state lists none", async () => {
  const { host, ids } = await taskTeam(['Ada'])
  track(host)
  const ada = ids.Ada!
  const adaChat = String((await host.ctx.botRoster.agentOf(ada)).id)
  await calm(host)
  const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  await host.dispose()
  // The archive as a v5-era team (or a crafted one) holds it: 20 open questions of Ada's own chat, more than the 5 that may wait.
  const entries = decodeArchive(archive).map((e) => {
    if (e.path !== 'bot/state.json') return e
    const state = JSON.parse(Buffer.from(e.data).toString('utf8'))
    state.ledgerImport = Array.from({ length: 20 }, (_, i) => ({
      id: `question-${i + 1}`,
      botId: ada,
      ...(i % 2 ? { sessionId: adaChat } : {}),
      question: `Old question ${i + 1}?`,
      askedAt: '2025-01-01T00:00:00.000Z',
      status: 'open',
    }))
    return { path: e.path, data: Buffer.from(JSON.stringify(state)) }
  })
  const home = join(tempDir('bot-team-ledger-import-'), 'home')
  mkdirSync(home)
  const stores = await openDshStores(home, { compression: 'none', workspaces: true })
  const report = await restoreBackup({ archive: encodeArchive(entries), home, sessions: stores.sessions, workspaces: stores.workspaces! })
  await stores.close()
  expect(report.cancelled).toHaveLength(20)
  expect(report.cancelled.every((line) => /^task-\d+: Ada's question.*, still waiting, was cancelled$/.test(line))).toBe(true)
  expect(JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8'))).not.toHaveProperty('ledgerImport')
  const restored = await TaskStore.open({ dir: join(home, 'bot', 'tasks'), mayWrite: () => false })
  const tells = restored.pending().filter((i) => i.kind === 'tell' && i.botId === ada)
  await restored.close()
  expect(tells.map((i) => i.kind === 'tell' && /Cancelled: your question task-\d+ \("Old question 1\?"\)/.test(i.text))).toEqual([true])

  const moved = track(await startTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: { text: 'ok' } } }, { home }))
  await moved.ctx.botTasks.settled()
  const imported = [...moved.ctx.botTasks.board.all()].filter((t) => t.ask?.imported)
  expect([imported.length, imported.filter((t) => t.status === 'cancelled').length]).toEqual([20, 20])
  expect(moved.ctx.botTasks.inbox().filter((t) => t.ask?.botId === ada && t.status === 'ready')).toEqual([])
})
