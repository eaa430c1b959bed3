// The task ledger in backup and restore (real DSH in-process): `bot/tasks/` is in the archive, and
// so are the task Sessions, which only the ledger names (a Bot with its own working folder keeps
// its task Sessions there, outside the team folder); a restored team has its tasks and their
// Sessions, and goes on numbering new tasks after them.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { expect, it } from 'vitest'
import { lastToolResults, lastUserText, offersTool, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { deliverySource } from '../../../src/core/sources.ts'
import { takeBackup, type SessionReader } from '../../../src/backup/backup.ts'
import { openDshStores } from '../../../src/backup/dsh-runtime.ts'
import { decodeArchive } from '../../../src/backup/format.ts'
import { restoreBackup } from '../../../src/backup/restore.ts'
import { disposedAfterEach, registerApprovalTool, startTeamHost } from '../../support/dsh-host.ts'
import { calm, injectedTexts, submits, taskTeam, taskWhere, user } from '../tasks/helpers.ts'
import { tempDir } from '../../support/temp-dir.ts'

const track = disposedAfterEach()

it("backs up the ledger and every task Session, also one in a Bot's own working folder, which only the ledger names", async () => {
  const { host } = await taskTeam(['Ada'], { Ada: submits })
  track(host)
  const folder = join(tempDir('bot-team-ada-folder-'), 'ada')
  mkdirSync(folder)
  await host.ctx.botRoster.update(user, 'Ada', { workFolder: folder })
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'x', assignee: 'Ada' }] })
  const task = await taskWhere(host, ids[0]!, (t) => t.status === 'review')
  await calm(host)
  expect((await host.ctx.sessionPersistence.inspect(task.sessionId as never)).meta.cwd).toBe(folder)
  const { archive, manifest } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  expect(manifest.sessions.map((s) => s.id)).toContain(task.sessionId)
  const paths = decodeArchive(archive).map((e) => e.path)
  expect(paths).toEqual(expect.arrayContaining(['bot/tasks/journal.jsonl']))
})

it('a restored team has its tasks and their Sessions, and numbers new tasks after them', async () => {
  const { host } = await taskTeam(['Ada'], { Ada: submits })
  track(host)
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'x', assignee: 'Ada' }] })
  const task = await taskWhere(host, ids[0]!, (t) => t.status === 'review')
  await host.ctx.botTasks.review(user, ids[0]!, 'accept')
  await calm(host)
  const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  await host.dispose()

  const home = join(tempDir('bot-team-tasks-moved-'), 'home')
  mkdirSync(home)
  const stores = await openDshStores(home, { compression: 'none', workspaces: true })
  await restoreBackup({ archive, home, sessions: stores.sessions, workspaces: stores.workspaces! })
  await stores.close()
  const moved = track(await startTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: submits } }, { home }))
  await moved.ctx.botTasks.settled()
  expect(moved.ctx.botTasks.board.get(ids[0]!)).toMatchObject({ status: 'done', sessionId: task.sessionId })
  expect(moved.ctx.botRoster.ownerOf(task.sessionId!)).toMatchObject({ kind: 'task', taskId: ids[0] })
  expect(JSON.stringify((await moved.ctx.sessionPersistence.inspect(task.sessionId as never)).events)).toContain('submit_task')
  const next = await moved.ctx.botTasks.plan(user, { tasks: [{ title: 'Next', brief: 'y', assignee: 'Ada' }] })
  expect(next.ids).toEqual(['task-2'])
})

/** Why a restore cancelled something, as the ledger records it. */
const RESTORED = /^the team was restored from a backup, and nothing asked, allowed or answered before it carries over$/

/** A message from another Bot into `agent`'s chat: a Bot-started turn (on Eve's chain). */
let sent = 0
function fromEve(agent: Agent, text: string): void {
  agent.followup(
    createUserMessage({
      content: [{ type: 'text', text }],
      source: deliverySource({ id: `delivery-restore-${++sent}`, from: 'bot-9', kind: 'message' }, 'Eve', { hop: 1, budget: 'budget:from-eve' }),
    }),
  )
}

/** Ada: "write X" → the call that needs approval; "ask X" → a question; "The user allowed" → that call again. */
const ada = (req: RecordedRequest): Reply => {
  const said = lastUserText(req) ?? ''
  if (lastToolResults(req).length) return { text: 'ok' }
  const write = /^(?:please )?write (\S+)/.exec(said)
  if (write) return { toolCalls: [{ name: 'needs_approval', args: { path: write[1] } }] }
  if (said.startsWith('The user allowed')) return { toolCalls: [{ name: 'needs_approval', args: { path: 'a.txt' } }] }
  const ask = /^ask (.+)$/.exec(said)
  if (ask) return { toolCalls: [{ name: 'ask_person', args: { question: ask[1] } }] }
  return { text: 'ok' }
}
/** Bob: in a task Session, stalls the first attempt (it is under way when the backup is taken); submits the next. */
const bob = (req: RecordedRequest): Reply => {
  if (lastToolResults(req).some((r) => r.name === 'submit_task')) return { text: 'submitted' }
  if (!offersTool(req, 'submit_task')) return { text: 'ok' }
  return stalling ? { fail: 'stall' } : { toolCalls: [{ name: 'submit_task', args: { note: 'done' } }] }
}
let stalling = true

it("a restored ledger carries no decision: waiting asks, an unused grant and undelivered answers come back cancelled, each Bot told; an attempt under way starts again in a new Session; the call made again waits for this home's person", async () => {
  stalling = true
  const scripts = { mock: { fallback: { text: 'ok' } }, ada: { fallback: ada }, bob: { fallback: bob } }
  const host = track(await startTeamHost(scripts, { permissions: true }))
  registerApprovalTool(host)
  const tasks = host.ctx.botTasks
  const adaBot = await host.ctx.botRoster.create(user, { name: 'Ada', model: 'mock/ada' })
  await host.ctx.botRoster.create(user, { name: 'Bob', model: 'mock/bob' })
  const adaChat = await host.ctx.botRoster.agentOf(adaBot.id)
  for (const text of ['write a.txt', 'write b.txt', 'ask Which licence?', 'ask Is the draft ready?']) {
    fromEve(adaChat, text)
    await calm(host)
  }
  await tasks.plan(user, { tasks: [{ title: 'Build', brief: 'Build it.', assignee: 'Bob' }] })
  const working = await taskWhere(host, 'task-5', (t) => t.status === 'working')
  // The team paused: the allow of task-1 and the answer of task-4 wait to be handed over.
  await host.ctx.botPause.pause('user')
  await tasks.decideApproval(user, 'task-1', 'allowed')
  await tasks.answer(user, 'task-4', { text: 'Yes' })
  expect(
    tasks.store
      .pending()
      .filter((i) => i.kind === 'answer')
      .map((i) => i.taskId),
  ).toEqual(['task-1', 'task-4'])
  const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  await host.dispose()

  const home = join(tempDir('bot-team-ledger-restored-'), 'home')
  mkdirSync(home)
  const stores = await openDshStores(home, { compression: 'none', workspaces: true })
  const report = await restoreBackup({ archive, home, sessions: stores.sessions, workspaces: stores.workspaces! })
  await stores.close()

  stalling = false
  const moved = track(await startTeamHost(scripts, { home, permissions: true }))
  registerApprovalTool(moved)
  const restored = moved.ctx.botTasks
  await restored.settled()
  expect([1, 2, 3, 4].map((n) => restored.board.get(`task-${n}`)!.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled'])
  expect(restored.board.get('task-1')!.ask!.grant).toMatchObject({ used: false, cancelled: { reason: expect.stringMatching(RESTORED) } })
  expect(restored.board.get('task-3')!.ask!.answer).toMatchObject({ verdict: 'cancelled' })
  expect(restored.inbox()).toEqual([])
  expect(restored.store.pending().filter((i) => i.kind === 'answer')).toEqual([])
  expect(restored.board.get('task-5')).toMatchObject({
    status: 'ready',
    sessionId: null,
    attempts: [{ n: 1, outcome: 'withdrawn', reason: expect.stringMatching(RESTORED) }],
  })
  // Nobody decided anything on this home: the person resumes; Ada is told in lines, and the call she makes again waits.
  await moved.ctx.botPause.resume()
  const again = await moved.ctx.botRoster.agentOf(adaBot.id)
  fromEve(again, 'please write a.txt')
  const waits = await taskWhere(moved, 'task-6', (t) => t.status === 'ready')
  const done = await taskWhere(moved, 'task-5', (t) => t.status === 'review')
  await calm(moved)
  expect(waits.ask).toMatchObject({ kind: 'approval', approval: { args: '{"path":"a.txt"}' } })
  // one line, read at her next turn, naming all four
  const lines = injectedTexts(again, 'task-notice')
  expect(lines).toEqual([
    expect.stringMatching(/^The team was restored from a backup, and nothing asked, allowed or answered before it carries over\. Cancelled: /),
  ])
  expect(lines[0]).toMatch(
    /the user's allow of needs_approval .* \(task-1\), which never ran; your approval task-2 of needs_approval .*; your question task-3 \("Which licence\?"\); the user's answer to your question task-4 \("Is the draft ready\?"\), not yet delivered\. Ask again/,
  )
  const decided = (again.session.events as any[]).filter((e) => e.type === 'approval/decided').map((e) => e.data.outcome)
  expect(decided.filter((o) => o !== 'rejected')).toEqual([])
  expect(done.sessionId).not.toBe(working.sessionId)
  // and the restore said what it did not carry over
  expect(report.cancelled).toEqual([
    "task-1: the allow of Ada's approval of needs_approval was cancelled unused",
    "task-2: Ada's approval of needs_approval, still waiting, was cancelled",
    "task-3: Ada's question, still waiting, was cancelled",
    "task-4: the answer to Ada's question, not yet delivered, was cancelled",
    'task-5: its attempt 1 was withdrawn; it starts again in a new Session',
  ])
})
