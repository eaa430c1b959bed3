// A team folder saved by an earlier release, copied into a test's DSH home as that release left it:
// `tests/fixtures/team-<state version>-<commit>/` holds `state.json`, the task ledger (`tasks/`) and
// `project.json`. The project's path in them (`FIXTURE_PROJECT`) is swapped for a real repository of
// the test's, so the team can use it; every other byte is the release's.
import { cpSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project path the release's files name (the person's repository on the machine that saved them). */
export const FIXTURE_PROJECT = '/home/person/src/greeting'

/** Copy the fixture `name` into `<home>/bot/`, naming `project` (a real repository) where the release named its own. */
export function copyFixtureTeam(name: string, home: string, opts: { project?: string } = {}): string {
  const from = fileURLToPath(new URL(`../fixtures/${name}/`, import.meta.url))
  const dir = join(home, 'bot')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  cpSync(from, dir, { recursive: true, filter: (src) => !src.endsWith('README.md') })
  if (opts.project) for (const file of filesUnder(dir)) swap(file, FIXTURE_PROJECT, opts.project)
  return dir
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile() && !relative(dir, f).startsWith('..'))
}

function swap(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8')
  if (text.includes(from)) writeFileSync(file, text.split(from).join(to), { mode: 0o600 })
}
