/**
 * The confined side of the git layer: `confineWith` turns the caller's confinement (in the task
 * service: the Bot's sandbox mode and network level) into the `Confine` seam; `confinedRemove`
 * deletes a folder a Bot could write by a confined `rm -rf` with that folder its only writable
 * root; `endProcessesIn` ends the processes still working in such a folder before it is committed
 * or removed. Deliberately no git policy.
 */
import { readdir, readlink, rmdir } from 'node:fs/promises'
import path from 'node:path'
import { errorText } from '../core/errors.ts'
import { type Confine, type ConfineMode, ConfineUnavailable, type GitRunner } from './git.ts'
import { isInside } from './policy.ts'

/** How the caller confines one command at `mode` (the argv to spawn instead; throws or rejects when it cannot). */
export interface ConfineWith {
  wrap(argv: readonly string[], at: { mode: ConfineMode; workspaceRoot: string; cwd: string }): readonly string[] | Promise<readonly string[]>
  /** Why nothing can run at `mode` here, or `null` (asked before each command too). */
  unavailable(mode: ConfineMode): string | null
}

/** The `Confine` seam over the caller's confinement: a refusal or a failure to wrap is a `ConfineUnavailable`. */
export function confineWith(how: ConfineWith): Confine {
  return {
    unavailable: (mode) => how.unavailable(mode),
    async argvFor(argv, { mode, root, cwd }) {
      const why = how.unavailable(mode)
      if (why) throw new ConfineUnavailable(why)
      try {
        return [...(await how.wrap(argv, { mode, workspaceRoot: root, cwd }))]
      } catch (error) {
        throw error instanceof ConfineUnavailable ? error : new ConfineUnavailable(errorText(error))
      }
    },
  }
}

/** DSH's `sandbox.confine` alone (no network level): what tests and benches drive `src/worktrees` with. */
export type WrapArgv = (argv: readonly string[], policy: { mode: 'read-only' | 'workspace-write'; workspaceRoot: string }) => string[]

/**
 * The `Confine` seam over DSH's sandbox alone: `read-only` and `workspace-write` through `wrap`
 * (absent: no sandbox here, and nothing runs), `danger-full-access` unconfined. The task service
 * confines through the Bot's network level instead (`BotTasks.confined`).
 */
export function sandboxConfine(wrap: WrapArgv | undefined): Confine {
  return confineWith({
    unavailable: (mode) => (mode === 'danger-full-access' || wrap ? null : `no sandbox here to run it at ${mode}`),
    wrap: (argv, { mode, workspaceRoot }) => (mode === 'danger-full-access' ? argv : wrap!(argv, { mode, workspaceRoot })),
  })
}

/**
 * Delete `dir` (a folder the plugin made, in a folder of its own, that a Bot could write): a
 * confined `chmod -R u+rwX` and `rm -rf` with `dir` its only writable root empty it — no link in
 * it is followed — then the plugin removes the empty folder itself (`rmdir`, which fails on
 * anything left). Throws when the sandbox is missing or something stays.
 */
export async function confinedRemove(git: GitRunner, dir: string, confine: Confine): Promise<void> {
  const at = { confine, mode: 'workspace-write' as const, root: dir }
  await git.exec(['/bin/sh', '-c', 'chmod -R u+rwX -- "$1" 2>/dev/null; rm -rf -- "$1"', 'sh', dir], { cwd: path.dirname(dir), confined: at, okCodes: [0, 1] })
  await rmdir(dir)
}

/**
 * End (SIGKILL) the processes of this user whose working folder lies in `dir`: a Bot's background
 * job or a leftover of its shell, before the plugin commits or removes the folder. Best effort
 * (reads `/proc`; a process that left the folder is not found). Returns how many were ended.
 */
export async function endProcessesIn(dir: string): Promise<number> {
  let ended = 0
  const pids = await readdir('/proc').catch(() => [] as string[])
  for (const pid of pids) {
    if (!/^[0-9]+$/.test(pid) || Number(pid) === process.pid) continue
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null)
    if (!cwd || !isInside(cwd.replace(/ \(deleted\)$/, ''), dir)) continue
    try {
      process.kill(Number(pid), 'SIGKILL')
      ended++
    } catch {}
  }
  return ended
}
