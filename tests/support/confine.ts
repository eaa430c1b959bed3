// DSH's real sandbox (`@deepseek-ai/dsh-sandbox-local`: Landlock on these machines) as the git
// layer's `Confine` seam, for tests and benches that drive `src/worktrees` without a DSH host —
// the same provider the host mounts; with `level`, entered into a real namespace set at that level
// through `botNetwork.confine`, as the task service's seam does for a Bot.
import { Context } from '@deepseek-ai/cordis'
import SandboxLocal from '@deepseek-ai/dsh-sandbox-local'
import { BotNetwork } from '../../src/network/service.ts'
import { confineWith, sandboxConfine } from '../../src/worktrees/confine.ts'
import type { Confine, ConfineMode } from '../../src/worktrees/git.ts'
import type { ActAs } from '../../src/worktrees/worktrees.ts'

export interface RealSandbox {
  confine: Confine
  /** The seam at `mode` (default workspace-write), as `Worktrees` takes it. */
  as(mode?: ConfineMode): ActAs
  dispose(): Promise<void>
}

/** Mount DSH's local sandbox provider in a context of its own and return it as the seam (inside a namespace set at `level` when given). */
export async function realSandbox(opts: { level?: 'internet' | 'none' } = {}): Promise<RealSandbox> {
  const ctx = new Context()
  await ctx.plugin(SandboxLocal)
  const sandbox = await new Promise<{
    confine(argv: readonly string[], policy: { mode: 'read-only' | 'workspace-write'; workspaceRoot: string }): { argv: string[] }
  }>((resolve) => ctx.inject(['sandbox'], (c) => resolve(c.get('sandbox') as never)))
  let confine = sandboxConfine((argv, policy) => sandbox.confine(argv, policy).argv)
  const level = opts.level
  if (level) {
    await ctx.plugin(BotNetwork, { refreshSeconds: 0 })
    const network = await new Promise<BotNetwork>((resolve) => ctx.inject(['botNetwork'], (c) => resolve(c.get('botNetwork') as BotNetwork)))
    const probe = await network.whenProbed()
    if (probe.state !== 'ready') throw new Error(`no namespace set on this machine: ${probe.reason}`)
    confine = confineWith({
      unavailable: (mode) => (mode === 'danger-full-access' ? `danger-full-access does not run at ${level}` : null),
      wrap: async (argv, { mode, workspaceRoot, cwd }) => (await network.confine({ owner: 'bench', level, argv, mode, workspaceRoot, cwd })).argv,
    })
  }
  return { confine, as: (mode = 'workspace-write') => ({ confine, mode }), dispose: () => ctx.fiber.dispose() }
}
