/**
 * Installing the Bot team agent preset into DSH Web's user preset root: generated from DSH's own
 * `standard` (`preset.ts`), written only when its text changed, then resolved, and refused if DSH
 * reports it broken. Deliberately mounts nothing and never removes the preset.
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
