// DSH's real shell tool for the `dsh` tier: the `shellEnv` registry (`@deepseek-ai/dsh-shell-env`)
// and the model-facing `bash` tool (`@deepseek-ai/dsh-tool-bash`), the exact rc.8 builds the pinned
// `@deepseek-ai/dsh` bundle ships (resolved through its base bundle, not separate dependencies).
// Needs the host's `permissions` option (subprocess, sandbox and the bash sandbox are mounted there).
// With `background`, DSH's job registry and job tools too (`run_in_background`, on by default in
// DSH itself): a finished job wakes its Session with a `tool-jobs` notice. Also DSH's agent default
// model service, for hosts that stand for a real install (no plugin defaultModel).
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import type { Context } from '@deepseek-ai/cordis'

const fromBase = createRequire(
  createRequire(createRequire(import.meta.url).resolve('@deepseek-ai/dsh/package.json')).resolve('@deepseek-ai/dsh-base/package.json'),
)

async function load(name: string): Promise<any> {
  return import(pathToFileURL(fromBase.resolve(name)).href)
}

/** Mount `shellEnv` (with `home` as DSH_HOME) and the `bash` tool into a host's context. */
export async function mountShellTool(ctx: Context, home: string, options: { background?: boolean } = {}): Promise<void> {
  await ctx.plugin(await load('@deepseek-ai/dsh-shell-env'), { dshHome: home })
  if (options.background) {
    await ctx.plugin((await load('@deepseek-ai/dsh-jobs-local')).default)
    await ctx.plugin(await load('@deepseek-ai/dsh-tool-jobs'))
  }
  await ctx.plugin(await load('@deepseek-ai/dsh-tool-bash'), { enableRunInBackground: options.background === true })
}

/** Mount DSH's agent default model service (`agentDefaultModel`) naming `route`, as DSH's base bundle does. */
export async function mountDshDefaultModel(ctx: Context, route: string): Promise<void> {
  const at = route.indexOf('/')
  await ctx.plugin((await load('@deepseek-ai/dsh-agent-default-model')).default, { provider: route.slice(0, at), model: route.slice(at + 1) })
}
