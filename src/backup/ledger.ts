/**
 * The task ledger a restore brings back, opened once by this command as its writer (before team
 * state is written, so nothing else runs it): brought to this build's format, then carrying no
 * decision (`tasks/restored.ts`), compacted. Returns what it cancelled, in words, for the report.
 */
import { carryNoDecisions } from '../tasks/restored.ts'
import { TaskStore } from '../tasks/store.ts'

export async function restoreLedger(dir: string, nameOf: (botId: string) => string | undefined): Promise<string[]> {
  const store = await TaskStore.open({ dir, mayWrite: () => true })
  try {
    let said: string[] = []
    const r = await store.transact((view, pending) => {
      const carried = carryNoDecisions(view, pending, { now: new Date().toISOString(), nameOf })
      said = carried.said
      return carried
    })
    if (!r.ok) throw new Error(r.refusal)
    await store.compact()
    return said
  } finally {
    await store.close()
  }
}
