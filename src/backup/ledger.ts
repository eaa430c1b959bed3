/**
 * The task ledger a restore brings back, opened once by this command as its writer in a folder of
 * its own (before anything of the restore is written, so nothing else runs it and a failure leaves
 * nothing half made): brought to this build's format, the questions an older team file still lists
 * taken in, then carrying no decision (`tasks/restored.ts`), compacted — every pass as records
 * within the record limit. Returns what it cancelled, in words, for the report.
 */
import { importQuestions, type ImportedQuestion } from '../tasks/asks.ts'
import { JOURNAL_FILE, SNAPSHOT_FILE, TASKS_FORMAT } from '../tasks/journal.ts'
import { taskNumber } from '../tasks/record.ts'
import { carryNoDecisions } from '../tasks/restored.ts'
import { TaskStore } from '../tasks/store.ts'

/** Why this build cannot restore the archive's ledger (a newer format: it would open read-only), checked before anything is written. */
export function ledgerProblem(entries: readonly { path: string; data: Uint8Array }[]): string | undefined {
  for (const e of entries) {
    if (e.path !== `bot/tasks/${SNAPSHOT_FILE}` && e.path !== `bot/tasks/${JOURNAL_FILE}`) continue
    const data = Buffer.from(e.data.buffer, e.data.byteOffset, e.data.byteLength)
    const end = data.indexOf(10)
    let v: unknown
    try {
      v = (JSON.parse(data.subarray(0, end < 0 ? data.length : end).toString('utf8')) as { v?: unknown } | null)?.v
    } catch {}
    if (typeof v === 'number' && v > TASKS_FORMAT)
      return `its task ledger (${e.path}) is format ${v}, newer than this build's ${TASKS_FORMAT}: update the plugin, then restore`
  }
  return undefined
}

export interface LedgerCarry {
  /** A Bot's name, for the report. */
  nameOf: (botId: string) => string | undefined
  /** The questions team state still lists for the ledger to take (`ledgerImport`, a v5 file's). */
  questions?: readonly ImportedQuestion[] | undefined
  /** The Session an imported question without one is answered in (its Bot's own chat). */
  sessionOf?: (botId: string) => string | undefined
}

export async function restoreLedger(dir: string, carry: LedgerCarry): Promise<string[]> {
  const store = await TaskStore.open({ dir, mayWrite: () => true })
  try {
    const now = new Date().toISOString()
    const beyond: string[] = []
    if (carry.questions?.length) {
      const questions = carry.questions
      const first = store.board.nextId
      const r = await store.transactInParts((view) => importQuestions(view, questions, { now, sessionOf: carry.sessionOf ?? (() => undefined) }))
      if (!r.ok) throw new Error(r.refusal)
      // Those the import itself cancelled (beyond a Bot's bound) were waiting too: the report names them.
      const open = new Set(questions.filter((q) => q.status === 'open').map((q) => q.id))
      for (const t of store.board.all())
        if (taskNumber(t.id) >= first && t.ask?.imported && open.has(t.ask.imported) && t.status === 'cancelled')
          beyond.push(`${t.id}: ${carry.nameOf(t.ask.botId) ?? t.ask.botId}'s question from the older team file, still waiting, was cancelled`)
    }
    let said: string[] = []
    const r = await store.transactInParts((view, pending) => {
      const carried = carryNoDecisions(view, pending, { now, nameOf: carry.nameOf })
      said = [...carried.said, ...beyond]
      return carried
    })
    if (!r.ok) throw new Error(r.refusal)
    await store.compact()
    // The report names at most 100 tasks (an archive may hold thousands).
    return said.length > 100 ? [...said.slice(0, 100), `and ${said.length - 100} more tasks`] : said
  } finally {
    await store.close()
  }
}
