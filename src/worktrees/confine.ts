/**
 * The confined side of the git layer: `sandboxConfine` turns DSH's sandbox (as the caller wraps
 * it for a Bot) into the `Confine` seam; `confinedRemove` deletes a folder a Bot could write by a
 * confined `rm -rf` with that folder its only writable root; `endProcessesIn` ends the processes
 * still working in such a folder before it is committed or removed. Deliberately no git policy.
 */
import { spawn } from 'node:child_process'
import { readdir, readlink, rmdir } from 'node:fs/promises'
import path from 'node:path'
import { type Confine, type ConfineMode, ConfineUnavailable, type GitRunner } from './git.ts'
import { isInside } from './policy.ts'

/** DSH's `sandbox.confine` as the caller passes it: the argv to spawn instead (throws when it cannot confine). */
export type WrapArgv = (argv: readonly string[], policy: { mode: 'read-only' | 'workspace-write'; workspaceRoot: string }) => string[]

/**
 * The `Confine` seam over DSH's sandbox: `read-only` and `workspace-write` through `wrap` (absent:
 * no sandbox here, and nothing runs), `danger-full-access` as that Bot's shell runs it (unconfined).
 * stdin closed; `group`: in a process group of its own (a check, killed whole at its limit).
 */
export function sandboxConfine(wrap: WrapArgv | undefined): Confine {
  const unavailable = (mode: ConfineMode) => (mode === 'danger-full-access' || wrap ? null : `no sandbox here to run it at ${mode}`)
  return {
    unavailable,
    spawn(argv, { mode, root, cwd, env, group = false }) {
      const why = unavailable(mode)
      if (why) throw new ConfineUnavailable(why)
      const run = mode === 'danger-full-access' ? [...argv] : wrap!(argv, { mode, workspaceRoot: root })
      return spawn(run[0]!, run.slice(1), { cwd, env, detached: group, stdio: ['ignore', 'pipe', 'pipe'] })
    },
  }
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
