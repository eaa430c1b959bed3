// Task ledgers as the 09edfa6 release (format 1) left them: the fixture's own journal, and a large
// one as long use leaves it — the fixture's task-1 (an allowed approval whose one-shot grant was
// never used, its grant turn still queued) `n` times over, with 3,900-character arguments. Its
// format step changes every one of them: at 2,500 that is about 12 MB of changes, more than one
// journal record may hold (`MAX_LINE_BYTES`, 8 MiB).
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { snapshotText } from '../../src/tasks/journal.ts'
import type { Intent, Task } from '../../src/tasks/record.ts'
import { TaskStore } from '../../src/tasks/store.ts'

export const FORMAT1_JOURNAL = fileURLToPath(new URL('../fixtures/team-v6-09edfa6/tasks/journal.jsonl', import.meta.url))

/** Copy the fixture's format-1 journal into `dir` (created, 0700). */
export function fixtureLedger(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  copyFileSync(FORMAT1_JOURNAL, join(dir, 'journal.jsonl'))
  return dir
}

/** Write into `dir` (created) a format-1 ledger of `n` allowed approvals with unused grants, each with its grant turn queued. */
export async function largeFormat1Ledger(dir: string, n: number): Promise<void> {
  const source = fixtureLedger(join(dir, '..', 'fixture-tasks'))
  const read = await TaskStore.open({ dir: source, mayWrite: () => false })
  const t1 = read.board.get('task-1')!
  const turn = read.pending().find((i) => i.kind === 'answer' && i.taskId === 'task-1')!
  await read.close()
  if (!t1.ask?.grant || t1.ask.grant.used || turn.kind !== 'answer' || !turn.grant) throw new Error('the fixture no longer holds an unused grant with its turn')
  const args = JSON.stringify({ command: `echo ${'x'.repeat(3_900)}` })
  const tasks: Task[] = []
  const intents: Intent[] = []
  for (let i = 1; i <= n; i++) {
    const id = `task-${i}`
    tasks.push({ ...t1, id, ask: { ...t1.ask, approval: { ...t1.ask.approval!, args, callId: `call_${i}` } } })
    intents.push({ ...turn, id: `1.${i}`, taskId: id })
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  writeFileSync(join(dir, 'snapshot.jsonl'), snapshotText({ v: 1, seq: 1, nextId: n + 1, at: t1.updatedAt }, tasks, intents), { mode: 0o600 })
  writeFileSync(join(dir, 'journal.jsonl'), '{"v":1,"base":1}\n', { mode: 0o600 })
}
