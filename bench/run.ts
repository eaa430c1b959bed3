// Runs every benchmark in this folder, one after another, each in its own Node 22 process so they
// do not disturb each other's timings. Each prints its one-line summary (`bench <name>: …`).
// `overhead` runs first: `rooms` and `memory` take the plain DSH Web request it measures as their base.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
let failed = 0
const first = (f: string) => (f === 'overhead.ts' ? 0 : 1)
for (const file of readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .sort((a, b) => first(a) - first(b) || a.localeCompare(b))) {
  if (only.length && !only.some((name) => file.startsWith(name))) continue
  const r = spawnSync(process.execPath, [join(here, file)], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
