// DSH's real sandbox (`@deepseek-ai/dsh-sandbox-local`: Landlock on these machines) as the git
// layer's `Confine` seam, for tests and benches that drive `src/worktrees` without a DSH host —
// the same provider the host mounts, wrapped the way the task service wraps it.
import { Context } from '@deepseek-ai/cordis'
import SandboxLocal from '@deepseek-ai/dsh-sandbox-local'
import { sandboxConfine } from '../../src/worktrees/confine.ts'
import type { Confine, ConfineMode } from '../../src/worktrees/git.ts'
import type { ActAs } from '../../src/worktrees/worktrees.ts'

export interface RealSandbox {
  confine: Confine
  /** The seam at `mode` (default workspace-write), as `Worktrees` takes it. */
  as(mode?: ConfineMode): ActAs
  dispose(): Promise<void>
}

/** Mount DSH's local sandbox provider in a context of its own and return it as the seam. */
export async function realSandbox(): Promise<RealSandbox> {
  const ctx = new Context()
  await ctx.plugin(SandboxLocal)
  const sandbox = await new Promise<{
    confine(argv: readonly string[], policy: { mode: 'read-only' | 'workspace-write'; workspaceRoot: string }): { argv: string[] }
  }>((resolve) => ctx.inject(['sandbox'], (c) => resolve(c.get('sandbox') as never)))
  const confine = sandboxConfine((argv, policy) => sandbox.confine(argv, policy).argv)
  return { confine, as: (mode = 'workspace-write') => ({ confine, mode }), dispose: () => ctx.fiber.dispose() }
}
