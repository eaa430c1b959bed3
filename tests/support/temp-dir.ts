// A temporary folder for one test, removed when the test has finished: after every `afterEach`
// hook, so the hosts running on it are disposed first whatever order the hooks were declared in
// (a host still writing while its folder is removed fails the run with ENOTEMPTY).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

/** A fresh folder under the OS temp folder (its real path); call it inside a test. */
export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
