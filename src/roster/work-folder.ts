/**
 * Where a Bot may work (pure policy): a Bot's working folder is where its Sessions write under a
 * `workspace-write` preset, so it must not be, hold, or lie inside a protected folder — the DSH
 * home (profiles, their plugin config) and the team folder (`state.json`, `pairing.json`, secrets):
 * a Bot writing there could pair itself or rewrite its own limits. The team workspace and folders
 * below it stay allowed (every Bot works there by default).
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
