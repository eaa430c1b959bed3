/**
 * A small DSH for the `bin`: a Cordis Context with DSH's own SessionStore and JSONL session
 * persistence rooted at `<home>/sessions`, and — for a restore — DSH's storage, JSON storage
 * backend, storage domains and workspace registry rooted at `<home>/storages`, configured as DSH's
 * base and web-app bundles configure them. So the backup tool reads and writes Sessions and the
 * workspace list exactly as DSH does, without starting DSH.
 *
 * The modules are DSH's installed ones (`dshImport`): in a profile, `profiles/node_modules`
 * (which DSH links on every start) resolves every in-box package; before DSH has started with
 * this home, the `dsh` on PATH leads to them; in this repository, the pinned `@deepseek-ai/dsh`.
 * Nothing here loads the native SQLite module.
 *
 * Deliberately narrow: no agents, no model, no plugin config; the encoding of session logs
 * follows what the home already uses (`detectCompression`).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: DSH's own modules are imported at run time from the profile; their types are not this package's.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { SessionReader } from './backup.ts'
import type { SessionWriter, WorkspaceRegistryPort } from './restore.ts'

export type Compression = 'zstd' | 'none'

/** The `package.json` of the `dsh` launcher on PATH (a global install links its bin there), if any. */
function dshOnPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const bin = join(dir, 'dsh')
    if (!existsSync(bin)) continue
    for (let at = dirname(realpathSync(bin)); at !== dirname(at); at = dirname(at)) {
      const manifest = join(at, 'package.json')
      if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === '@deepseek-ai/dsh') return manifest
    }
  }
  return undefined
}

let resolvers: ((name: string) => string)[] | undefined

/**
 * Where DSH's in-box packages are found, in order: beside this module (a profile whose
 * `profiles/node_modules` DSH has linked — it does on every start), the `dsh` on PATH (a profile
 * DSH has not started yet), this repository's pinned `@deepseek-ai/dsh` (development).
 */
function dshResolvers(): ((name: string) => string)[] {
  if (resolvers) return resolvers
  const here = createRequire(import.meta.url)
  const anchors = [
    dshOnPath(),
    (() => {
      try {
        return here.resolve('@deepseek-ai/dsh/package.json')
      } catch {
        return undefined
      }
    })(),
  ]
  resolvers = [
    (name) => here.resolve(name),
    ...anchors.filter((a): a is string => a !== undefined).map((a) => (name: string) => createRequire(a).resolve(name)),
  ]
  return resolvers
}

async function dshImport(name: string): Promise<any> {
  for (const resolve of dshResolvers()) {
    let file: string
    try {
      file = resolve(name)
    } catch {
      continue
    }
    return import(pathToFileURL(file).href)
  }
  throw new Error(
    `DSH's package ${name} is not found from this profile. Start DSH once with this DSH_HOME (or run \`dsh --profile <profile> --dump-default-config\`, which links DSH's packages into the profiles folder), or put the \`dsh\` command on PATH, then run this again.`,
  )
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
    ctx.inject(keys, (c: any) => {
      clearTimeout(timer)
      resolve(c)
    })
  })
  return {
    sessions: ready.sessionPersistence,
    ...(opts.workspaces ? { workspaces: ready.workspaceRegistry } : {}),
    async close() {
      await ctx.fiber?.dispose?.()
    },
  }
}
