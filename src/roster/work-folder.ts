/**
 * Where a Bot may work (pure): never the DSH home or the team folder, nor inside or above them; the
 * team workspace and below are allowed; never inside or over the plugin's worktrees folder or the
 * team's project (`guardedConflict`: a Bot there could plant links the plugin's git follows); at every Session open the real path must still be the one
 * stored when the person set it (`openConflict`). Deliberately no disk, no authority.
 */
import { sep } from 'node:path'

/** True when `child` is `parent` or lies below it (absolute, normalised paths). */
export function within(child: string, parent: string): boolean {
  if (child === parent) return true
  return child.startsWith(parent.endsWith(sep) ? parent : parent + sep)
}

/** Why `folder` may not be a working folder, or undefined when it may. */
export function folderConflict(folder: string, protectedFolders: readonly string[], workspace: string): string | undefined {
  if (within(folder, workspace)) return undefined
  for (const p of protectedFolders) {
    if (within(folder, p)) return `it lies inside ${p}, which holds the team's own files; choose a folder outside it (or the team workspace)`
    if (within(p, folder)) return `it holds ${p}, which holds the team's own files; choose a folder that does not contain it`
  }
  return undefined
}

/** A folder a Bot's working folder may not be, hold or lie inside, named for the sentence. */
export interface Guarded {
  label: string
  /** Real paths (and as named). */
  paths: readonly string[]
}

/** Why `folder` (a real path) may not be a Bot's working folder because of `guarded` (the plugin's worktrees, the team's project), or undefined (pure). */
export function guardedConflict(folder: string, guarded: readonly Guarded[]): string | undefined {
  for (const g of guarded)
    for (const p of g.paths) {
      if (within(folder, p)) return `it lies inside ${g.label} (${p}), where a Bot's links would reach the plugin's own git; choose a folder outside it`
      if (within(p, folder)) return `it holds ${g.label} (${p}), where a Bot's links would reach the plugin's own git; choose a folder that does not contain it`
    }
  return undefined
}

/** What an open compares: the folder as named, its real path now, and what it must resolve to. */
export interface OpenFacts {
  /** The Session's working folder as its header names it. */
  cwd: string
  /** Its real path now. */
  real: string
  /** The team workspace as configured, and its real path when the roster started. */
  workspace: string
  workspaceReal: string
  /** The protected folders, as configured and as real paths. */
  protectedFolders: readonly string[]
  /** The real path stored when the person set this folder (undefined: not a folder the person set). */
  stored?: string | undefined
  /** The plugin's worktrees and the team's project (a task Session's clone is exempt from the first: the caller leaves it out). */
  guarded?: readonly Guarded[]
}

/** Why a Session may not open in `facts.cwd` now, or undefined when it may. */
export function openConflict(facts: OpenFacts): string | undefined {
  const { cwd, real } = facts
  if (within(cwd, facts.workspace) && !within(real, facts.workspaceReal)) return `${cwd} lies in the team workspace but now resolves to ${real}, outside it`
  if (facts.stored !== undefined && real !== facts.stored) return `${cwd} now resolves to ${real}, not to ${facts.stored} as when the person set it`
  const conflict = folderConflict(real, facts.protectedFolders, facts.workspaceReal) ?? guardedConflict(real, facts.guarded ?? [])
  return conflict ? `${cwd} resolves to ${real}: ${conflict}` : undefined
}

/**
 * Folders DSH's sandbox lets every command at workspace-write write besides its workspace: rc.8's
 * Landlock profile grants `/tmp` (bubblewrap mounts a private one instead).
 */
export const WORKSPACE_WRITE_EXTRAS: readonly string[] = ['/tmp']

/** The writable folder (of `writable`, real paths) that `folder` (a real path) lies in, if any. */
export function writableAbove(folder: string, writable: readonly string[]): string | undefined {
  return writable.find((w) => within(folder, w))
}
