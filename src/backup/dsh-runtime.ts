/**
 * A small DSH for the `bin`: a Cordis Context with DSH's own SessionStore and JSONL session
 * persistence rooted at `<home>/sessions`, and — for a restore — DSH's storage, JSON storage
 * backend, storage domains and workspace registry rooted at `<home>/storages`, configured as DSH's
 * base and web-app bundles configure them. So the backup tool reads and writes Sessions and the
 * workspace list exactly as DSH does, without starting DSH.
 *
 * The modules are DSH's installed ones: in a profile, `profiles/node_modules` resolves every
 * in-box package; in this repository they are found through the pinned `@deepseek-ai/dsh`
 * package. Nothing here loads the native SQLite module.
 *
 * Deliberately narrow: no agents, no model, no plugin config; the encoding of session logs
 * follows what the home already uses (`detectCompression`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { SessionReader } from './backup.ts'
import type { SessionWriter, WorkspaceRegistryPort } from './restore.ts'

export type Compression = 'zstd' | 'none'

async function dshImport(name: string): Promise<any> {
  try {
    return await import(name)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error
    const viaDsh = createRequire(createRequire(import.meta.url).resolve('@deepseek-ai/dsh/package.json'))
    return import(pathToFileURL(viaDsh.resolve(name)).href)
  }
}

const plugin = (mod: any): any => mod.default ?? mod

/**
 * The session-log encoding of `home`: the suffix of an existing log, else `compression: none` in
 * the home's own `cordis.patch.yml`, else DSH's default (zstd).
 */
export function detectCompression(home: string): Compression {
  const root = join(home, 'sessions')
  if (existsSync(root)) {
    for (const project of readdirSync(root)) {
      for (const id of existsSync(join(root, project)) ? readdirSync(join(root, project)) : []) {
        if (existsSync(join(root, project, id, 'session.jsonl.zstd'))) return 'zstd'
        if (existsSync(join(root, project, id, 'session.jsonl'))) return 'none'
      }
    }
  }
  const patch = join(home, 'cordis.patch.yml')
  if (existsSync(patch) && /session-persistence-jsonl[\s\S]*?compression:\s*['"]?none/.test(readFileSync(patch, 'utf8'))) return 'none'
  return 'zstd'
}

export interface DshStores {
  sessions: SessionReader & SessionWriter
  workspaces?: WorkspaceRegistryPort
  close(): Promise<void>
}

export async function openDshStores(home: string, opts: { compression?: Compression; workspaces?: boolean } = {}): Promise<DshStores> {
  const { Context } = await dshImport('@deepseek-ai/cordis')
  const ctx = new Context()
  await ctx.plugin(plugin(await dshImport('@deepseek-ai/dsh-session')))
  await ctx.plugin(plugin(await dshImport('@deepseek-ai/dsh-session-persistence-jsonl')), {
    root: join(home, 'sessions'),
    compression: opts.compression ?? detectCompression(home),
  })
  const keys = ['sessionPersistence']
  if (opts.workspaces) {
    await ctx.plugin(plugin(await dshImport('@deepseek-ai/dsh-storage')))
    await ctx.plugin(await dshImport('@deepseek-ai/dsh-storage-json'), { root: join(home, 'storages') })
    await ctx.plugin(await dshImport('@deepseek-ai/dsh-storage-domain'), { backend: 'json' })
    await ctx.plugin(plugin(await dshImport('@deepseek-ai/dsh-workspace')))
    keys.push('workspaceRegistry')
  }
  const ready = await new Promise<any>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`DSH's ${keys.join(' and ')} did not start`)), 30_000)
    ctx.inject(keys, (c: any) => { clearTimeout(timer); resolve(c) })
  })
  return {
    sessions: ready.sessionPersistence,
    ...(opts.workspaces ? { workspaces: ready.workspaceRegistry } : {}),
    async close() {
      await ctx.fiber?.dispose?.()
    },
  }
}
