// Task ledgers as the 09edfa6 release (format 1) left them: the fixture's own journal (its task-1
// an allowed approval whose one-shot grant was never used, its grant turn still queued).
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const FORMAT1_JOURNAL = fileURLToPath(new URL('../fixtures/team-v6-09edfa6/tasks/journal.jsonl', import.meta.url))

/** Copy the fixture's format-1 journal into `dir` (created, 0700). */
export function fixtureLedger(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  copyFileSync(FORMAT1_JOURNAL, join(dir, 'journal.jsonl'))
  return dir
}
