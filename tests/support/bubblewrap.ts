// Debian's bubblewrap for one test, never installed for the machine: `apt-get download bubblewrap`
// and `dpkg -x` into a private folder whose `usr/bin` goes first on that DSH process's PATH (DSH's
// sandbox prefers a working bwrap over Landlock). Removed when the test ends.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

/** The folder holding a private `bwrap` (its `usr/bin`). */
export function privateBubblewrap(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bot-team-bwrap-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  execFileSync('apt-get', ['download', '-q', 'bubblewrap'], { cwd: dir, stdio: 'pipe' })
  const deb = readdirSync(dir).find((f) => f.startsWith('bubblewrap_') && f.endsWith('.deb'))
  if (!deb) throw new Error('apt-get download bubblewrap left no package')
  execFileSync('dpkg', ['-x', join(dir, deb), join(dir, 'root')], { stdio: 'pipe' })
  const bin = join(dir, 'root', 'usr', 'bin')
  if (!existsSync(join(bin, 'bwrap'))) throw new Error('the bubblewrap package holds no usr/bin/bwrap')
  return bin
}
