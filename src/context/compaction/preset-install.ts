/**
 * Installing the Bot team agent preset into DSH Web's user preset root (I/O).
 *
 * Reads DSH's own `standard` preset through `ctx.agentPresets` (so it is the running install's),
 * generates the Bot team composition (`preset.ts`), and writes `agent.cordis.yml` and `preset.yml`
 * under the first `user` root (`$DSH_HOME/.agent-presets` by default) — only when their text
 * differs, so an unchanged install keeps DSH's preset generation (DSH re-mounts a preset whose
 * composition file changed). Then it asks DSH to resolve the preset, and refuses one DSH reports
 * broken.
 *
 * Deliberately does not: mount anything (DSH mounts a preset when a Session names it) or remove
 * the preset on unload (Sessions already on it keep needing it; the engine then runs DSH's own
 * behaviour for every Session, as nothing owns them).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { AgentPresets } from '../../dsh/services.ts'
import { errorText } from '../../core/errors.ts'
import { BOT_PRESET_ID, BOT_PRESET_META, botPresetComposition } from './preset.ts'

export type Installed = { ok: true; id: string } | { ok: false; reason: string }

async function writeIfChanged(path: string, text: string): Promise<void> {
  const old = await readFile(path, 'utf8').catch(() => undefined)
  if (old !== text) await writeFile(path, text, { mode: 0o600 })
}

export async function installBotPreset(presets: AgentPresets, enginePath: string): Promise<Installed> {
  try {
    const generated = botPresetComposition(await presets.read('standard'), enginePath)
    if (!generated.ok) return generated
    const root = presets.roots.find((r) => r.trust === 'user')
    if (!root) return { ok: false, reason: 'DSH has no user preset root to install into' }
    const dir = join(root.path.replace(/^~(?=$|[\\/])/, homedir()), BOT_PRESET_ID)
    await mkdir(dir, { recursive: true, mode: 0o700 })
    await writeIfChanged(join(dir, 'agent.cordis.yml'), generated.text)
    await writeIfChanged(join(dir, 'preset.yml'), BOT_PRESET_META)
    const preset = await presets.resolve(BOT_PRESET_ID)
    if (preset.broken) return { ok: false, reason: `DSH reports the installed preset broken: ${preset.broken}` }
    return { ok: true, id: preset.id }
  } catch (error) {
    return { ok: false, reason: errorText(error) }
  }
}
