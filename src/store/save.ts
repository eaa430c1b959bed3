/**
 * Atomic save — the bytes of `bot/state.json` and how they reach the disk.
 *
 * Owns: `serializeState()` (stable, pretty JSON with a trailing newline) and `writeStateFile()`,
 * which writes through write-file-atomic: a temp file `state.json.<n>` beside the target, fsync,
 * then rename over the target, so a reader (or a crash) sees either the old or the new file,
 * never a mix.
 *
 * Deliberately narrow: no validation, no locking, no revision bookkeeping — `service.ts` does all
 * of that before calling here. Temp files left by a killed process are removed by the next writer
 * at load (`isTempLeftover` in `load.ts`).
 *
 * Composes: kept free of zod and Cordis so the crash test's child process, which is SIGKILLed
 * hundreds of times, starts fast while using exactly the save path the service uses.
 */
import writeFileAtomic from 'write-file-atomic'

export function serializeState(state: unknown): string {
  return JSON.stringify(state, null, 2) + '\n'
}

export async function writeStateFile(file: string, text: string): Promise<void> {
  await writeFileAtomic(file, text, { fsync: true })
}
