/**
 * Where a Bot may work (pure policy): a Bot's working folder is where its Sessions write under a
 * `workspace-write` preset, so it must not be, hold, or lie inside a protected folder — the DSH
 * home (profiles, their plugin config) and the team folder (`state.json`, `pairing.json`, secrets):
 * a Bot writing there could pair itself or rewrite its own limits. The team workspace and folders
 * below it stay allowed (every Bot works there by default).
 *
 * A folder is checked again at every Session open (`openConflict`): its real path now must be the
 * one stored when the person set it, and still clear of the protected folders.
 *
 * Deliberately narrow: compares absolute paths the caller has already resolved (real paths, no
 * symlinks); it does not touch the disk or decide who may set a folder (`authority.ts`).
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
}

/** Why a Session may not open in `facts.cwd` now, or undefined when it may. */
export function openConflict(facts: OpenFacts): string | undefined {
  const { cwd, real } = facts
  if (within(cwd, facts.workspace) && !within(real, facts.workspaceReal)) return `${cwd} lies in the team workspace but now resolves to ${real}, outside it`
  if (facts.stored !== undefined && real !== facts.stored) return `${cwd} now resolves to ${real}, not to ${facts.stored} as when the person set it`
  const conflict = folderConflict(real, facts.protectedFolders, facts.workspaceReal)
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
