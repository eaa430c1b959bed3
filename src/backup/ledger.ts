/**
 * The task ledger a restore brings back, opened once by this command as its writer in a folder of
 * its own (before anything of the restore is written, so nothing else runs it and a failure leaves
 * nothing half made): brought to this build's format, then carrying no decision
 * (`tasks/restored.ts`), compacted — every pass as records within the record limit. Returns what it
 * cancelled, in words, for the report.
 */
import { JOURNAL_FILE, SNAPSHOT_FILE, TASKS_FORMAT } from '../tasks/journal.ts'
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

export async function restoreLedger(dir: string, nameOf: (botId: string) => string | undefined): Promise<string[]> {
  const store = await TaskStore.open({ dir, mayWrite: () => true })
  try {
    let said: string[] = []
    const r = await store.transactInParts((view, pending) => {
      const carried = carryNoDecisions(view, pending, { now: new Date().toISOString(), nameOf })
      said = carried.said
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
