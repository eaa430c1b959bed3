/**
 * A clone's state and its uncommitted work, by the Bot's own authority: every process here runs
 * through the Bot's sandbox (`ConfinedAt`) with the clone its only writable folder — the plugin
 * never runs git, writes, deletes or follows a link in a clone as itself. `cloneStatus` reads the
 * branch and whether anything is uncommitted; `commitWip` clears stale lock files below `.git`
 * (`find -delete`, confined too), then `git add -A` and `git commit --no-verify`, the filters and
 * diff programs the clone's config names emptied. Deliberately no fetch and no registry.
 */
import path from 'node:path'
import type { ConfinedAt, GitRunner } from './git.ts'
import { type CloneStatus, neutralizers, parseStatus } from './policy.ts'

/** The options of a confined git call in the clone `dir` (its git dir and work tree named). */
function inClone(dir: string, at: ConfinedAt) {
  return { cwd: dir, gitDir: path.join(dir, '.git'), workTree: dir, confined: at }
}

/** The `-c` overrides that empty every filter and diff program the clone's config names (one confined `git config --list`). */
async function cloneNeutralizers(git: GitRunner, dir: string, at: ConfinedAt): Promise<string[]> {
  return neutralizers((await git.run(['config', '--list', '-z'], { ...inClone(dir, at), maxOutput: 1024 * 1024 })).stdout)
}

/**
 * The clone's branch and whether anything is uncommitted (tracked or untracked, not ignored): a
 * confined `git status`, the filters its config names emptied (a clean filter would run otherwise).
 */
export async function cloneStatus(git: GitRunner, dir: string, at: ConfinedAt): Promise<ReadStatus> {
  const neutral = await cloneNeutralizers(git, dir, at)
  const r = await git.run(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--ignore-submodules=all', '--no-renames'], {
    ...inClone(dir, at),
    config: neutral,
  })
  return { ...parseStatus(r.stdout), neutral }
}

/** A clone's status with the overrides that neutralize its config's filters (reused by the commit). */
export type ReadStatus = CloneStatus & { neutral: string[] }

/**
 * Clear the lock files a killed git left below the clone's `.git` — by the Bot's authority: a
 * confined `find -delete` (no link followed; the sandbox lets it write the clone only). Only
 * when no git of the Bot runs there (the caller ended its processes first).
 */
export async function clearCloneLocks(git: GitRunner, dir: string, at: ConfinedAt): Promise<void> {
  await git.exec(['find', path.join(dir, '.git'), '-name', '*.lock', '-type', 'f', '-delete'], { cwd: dir, confined: at, okCodes: [0, 1] })
}

export type WipOutcome = { committed: boolean; status: ReadStatus }

/**
 * Commit the clone's uncommitted work on whatever `HEAD` is (the branch it is on, or detached),
 * confined at `at.mode` (never read-only: the caller keeps the clone then). Stale `*.lock` files
 * below `.git` go first — no git of the Bot runs there now. Throws when a step fails.
 */
export async function commitWip(git: GitRunner, dir: string, message: string, at: ConfinedAt, status?: ReadStatus): Promise<WipOutcome> {
  const st = status ?? (await cloneStatus(git, dir, at))
  if (!st.dirty) return { committed: false, status: st }
  const opts = inClone(dir, at)
  await clearCloneLocks(git, dir, at)
  const neutral = st.neutral
  await git.run(['add', '-A', '--', '.'], { ...opts, config: neutral })
  await git.run(['commit', '--no-verify', '--quiet', '--allow-empty-message', '-m', message], { ...opts, config: neutral })
  return { committed: true, status: st }
}
