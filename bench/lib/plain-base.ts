// The size of a plain DSH Web chat's first request, as `bench overhead` measured it on real DSH
// Web, for the in-process benches (`bench rooms`, `bench memory`) to use as their base instead
// of a stand-in constant. Saved under .tmp/bench/ with the DSH version it was measured on; a
// bench that finds none (or one of another DSH) runs `bench overhead` first.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const file = process.env.BENCH_PLAIN_FILE || join(root, '.tmp', 'bench', 'plain-request.json')

export interface PlainBase {
  /** JSON characters of the whole first request (system + tools + messages). */
  chars: number
  system: number
  tools: number
  messages: number
  dsh: string
  measuredAt: string
}

function dshVersion(): string {
  return JSON.parse(readFileSync(join(root, 'node_modules', '@deepseek-ai', 'dsh', 'package.json'), 'utf8')).version
}

export function savePlainBase(b: Omit<PlainBase, 'dsh' | 'measuredAt'>): void {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${JSON.stringify({ ...b, dsh: dshVersion(), measuredAt: new Date().toISOString() }, null, 2)}\n`)
}

function read(): PlainBase | undefined {
  if (!existsSync(file)) return undefined
  const b = JSON.parse(readFileSync(file, 'utf8')) as PlainBase
  return b.dsh === dshVersion() && b.chars > 0 ? b : undefined
}

/** The plain request's size; measured by `bench overhead` now when it was not yet (minutes). */
export function plainBase(): PlainBase {
  const found = read()
  if (found) return found
  const r = spawnSync(process.execPath, [join(root, 'bench', 'overhead.ts')], { stdio: ['ignore', 'inherit', 'inherit'] })
  const measured = read()
  if (r.status !== 0 || !measured) throw new Error('bench overhead did not measure the plain request')
  return measured
}
