// A team host with DSH's compaction stack as DSH composes it where a Session compacts: DSH's token
// meter (host plane) and the compaction engine this plugin ships (DSH's BasicCompactionEngine with
// Bot Sessions taken over), mounted the way a preset row mounts it. Both DSH packages are loaded
// from DSH's own install (importFromHost), as the engine module itself does.
import type { Context } from '@deepseek-ai/cordis'
import { importFromHost } from '../../../src/dsh/host-module.ts'
import * as engine from '../../../src/context/compaction/engine.ts'
import { startTeamHost, type DshHost, type TeamHostOptions } from '../../support/dsh-host.ts'
import type { Script, ScriptMap } from '../../../scripts/scripted-model/format.ts'

export async function startCompactingTeamHost(script: Script | ScriptMap, options: TeamHostOptions = {}): Promise<DshHost> {
  const host = await startTeamHost(script, options)
  const { TokenMeter } = await importFromHost<{ TokenMeter: Parameters<Context['plugin']>[0] }>('@deepseek-ai/dsh-token-meter')
  await host.ctx.plugin(TokenMeter)
  await host.ctx.plugin(engine as unknown as Parameters<Context['plugin']>[0], {})
  return host
}
