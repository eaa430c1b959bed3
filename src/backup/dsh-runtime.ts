/**
 * A small DSH for the command: a Cordis Context with DSH's own SessionStore and JSONL persistence
 * (and, for a restore, storage and the workspace registry), from DSH's installed modules — the
 * profile's, the `dsh` that started the command, the one on PATH or `~/dsh` — else `DshNotFound`
 * with the command to run. Deliberately no agents, no model, no plugin config, no SQLite.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: DSH's own modules are imported at run time from the profile; their types are not this package's.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { delimiter, dirname, isAbsolute, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { SessionReader } from './backup.ts'
import type { SessionWriter, WorkspaceRegistryPort } from './restore.ts'

export type Compression = 'zstd' | 'none'

/** The `@deepseek-ai/dsh` package.json at or above a file, if it is inside DSH's package. */
function dshPackageOf(file: string): string | undefined {
  let at: string
  try {
    at = dirname(realpathSync(file))
  } catch {
    return undefined
  }
  for (; at !== dirname(at); at = dirname(at)) {
    const manifest = join(at, 'package.json')
    try {
      if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === '@deepseek-ai/dsh') return manifest
    } catch {
      // an unreadable manifest is not DSH's
    }
  }
  return undefined
}

/** The `package.json` of the `dsh` launcher on PATH (a global install links its bin there), if any. */
function dshOnPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const bin = join(dir, 'dsh')
    if (existsSync(bin)) {
      const found = dshPackageOf(bin)
      if (found) return found
    }
  }
  return undefined
}

/** A process's parent and arguments (Linux `/proc`, elsewhere `ps`); undefined when unknown. */
function processInfo(pid: number): { ppid: number; args: string[] } | undefined {
  try {
    if (existsSync(`/proc/${pid}/stat`)) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      return { ppid, args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean) }
    }
    const line = execFileSync('ps', ['-o', 'ppid=', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8', timeout: 2_000 }).trim()
    const m = /^(\d+)\s+(.*)$/.exec(line)
    return m ? { ppid: Number(m[1]), args: m[2]!.split(/\s+/) } : undefined
  } catch {
    return undefined
  }
}

/**
 * The DSH whose launcher started this process (`dsh plugin --profile <p> exec dsh-bot-team …` runs
 * pnpm, which runs this bin): the first ancestor with an argument inside `@deepseek-ai/dsh`.
 */
function dshInAncestry(): string | undefined {
  let pid = process.ppid
  for (let depth = 0; depth < 12 && pid > 1; depth++) {
    const info = processInfo(pid)
    if (!info) return undefined
    for (const arg of info.args) {
      if (!isAbsolute(arg)) continue
      const found = dshPackageOf(arg)
      if (found) return found
    }
    pid = info.ppid
  }
  return undefined
}

/** DSH where the README installs it (`~/dsh`, `pnpm install` there). */
function dshInReadmePlace(): string | undefined {
  const manifest = join(homedir(), 'dsh', 'node_modules', '@deepseek-ai', 'dsh', 'package.json')
  return existsSync(manifest) ? manifest : undefined
}

/** DSH's packages were found nowhere this command looks (see the module header). */
export class DshNotFound extends Error {
  constructor(name: string) {
    super(
      `DSH's package ${name} was not found: this command was not started by DSH's own launcher, DSH has not run with this DSH_HOME yet, and no dsh is on PATH or in ~/dsh.`,
    )
  }
}

let resolvers: ((name: string) => string)[] | undefined

/**
 * Where DSH's in-box packages are found, in order: beside this module (a profile whose
 * `profiles/node_modules` DSH has linked — it does on every start), the `dsh` that started this
 * command, the `dsh` on PATH, `~/dsh`, this repository's pinned `@deepseek-ai/dsh` (development).
 */
function dshResolvers(): ((name: string) => string)[] {
  if (resolvers) return resolvers
  const here = createRequire(import.meta.url)
  const anchors = [
    dshInAncestry(),
    dshOnPath(),
    dshInReadmePlace(),
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
  throw new DshNotFound(name)
}

/** The profile this bin is installed in, from its own path (`…/profiles/<p>/node_modules/…`). */
export function installedProfile(moduleUrl: string = import.meta.url): string | undefined {
  return /\/profiles\/([^/]+)\/node_modules\//.exec(decodeURIComponent(new URL(moduleUrl).pathname))?.[1]
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
