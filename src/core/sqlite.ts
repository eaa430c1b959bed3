/**
 * SQLite driver loading that never throws: better-sqlite3 probed once, a failure classified
 * (`missing-binding`, `abi-mismatch`) with the repair command named, and Node's `node:sqlite` as the
 * fallback. Deliberately knows nothing about the tables; hands out a minimal `SqliteDatabase`.
 */
import { createRequire } from 'node:module'
import { dirname, sep } from 'node:path'
import { errorText } from './errors.ts'

export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite'

export interface SqliteStatement {
  run(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
  get(...params: unknown[]): unknown
}

export interface SqliteDatabase {
  exec(sql: string): void
  prepare(sql: string): SqliteStatement
  close(): void
}

export interface SqliteProblem {
  kind: 'missing-binding' | 'abi-mismatch' | 'load-failed'
  /** One line for the user: what broke and the command that fixes it. */
  message: string
  /** The exact repair command. */
  fix: string
  /** The original error message, for diagnostics. */
  detail: string
}

export interface SqliteDriver {
  name: SqliteDriverName
  open(path: string): SqliteDatabase
}

export type SqliteLoad = { ok: true; driver: SqliteDriver; problem?: SqliteProblem } | { ok: false; problem: SqliteProblem }

/** The Node install whose headers a native build must use (`<prefix>/bin/node` → `<prefix>`). */
export function nodeDirOf(execPath: string): string {
  return dirname(dirname(execPath))
}

/** The DSH profile this copy of the plugin is installed in, read off its own path. */
export function profileOf(modulePath: string): string | undefined {
  const marker = `${sep}profiles${sep}`
  const at = modulePath.lastIndexOf(marker)
  if (at < 0) return undefined
  const rest = modulePath.slice(at + marker.length).split(sep)
  return rest[0] && rest[0] !== 'node_modules' ? rest[0] : undefined
}

export function rebuildCommand(nodeDir: string, profile: string | undefined): string {
  return `npm_config_nodedir=${nodeDir} dsh plugin --profile ${profile ?? '<profile>'} rebuild better-sqlite3`
}

/** Classify a better-sqlite3 load failure (pure). */
export function classifySqliteError(error: unknown, fix: string): SqliteProblem {
  const detail = errorText(error)
  const code = (error as { code?: unknown } | null)?.code
  const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(detail)
  if (/Could not locate the bindings file/.test(detail)) {
    return {
      kind: 'missing-binding',
      detail,
      fix,
      message: `better-sqlite3 was installed without its native build (pnpm skipped it). Fix: ${fix}`,
    }
  }
  if (code === 'ERR_DLOPEN_FAILED' || abi) {
    const what = abi ? `built for Node ABI ${abi[1]}, but DSH runs Node ABI ${abi[2]}` : 'its native binary cannot be loaded'
    return { kind: 'abi-mismatch', detail, fix, message: `better-sqlite3 is ${what}. Fix: ${fix}` }
  }
  return { kind: 'load-failed', detail, fix, message: `better-sqlite3 failed to load (${detail.split('\n')[0]}). Fix: ${fix}` }
}

type Loader = () => unknown

export interface LoadSqliteOptions {
  prefer?: 'auto' | SqliteDriverName
  /** Returns the better-sqlite3 constructor; injectable so tests can simulate each failure. */
  loadBetterSqlite?: Loader
  /** Returns `node:sqlite`'s module; injectable for tests. */
  loadNodeSqlite?: Loader
  /** Repair command shown to the user. */
  fix?: string
}

const require = createRequire(import.meta.url)

function betterSqliteDriver(load: Loader): SqliteDriver {
  const Database = load() as new (path: string) => SqliteDatabase
  // The addon is opened by the constructor, not by require(): probe it here so the failure
  // surfaces at activation, once, instead of inside some later tool call.
  new Database(':memory:').close()
  return { name: 'better-sqlite3', open: (path) => new Database(path) }
}

function nodeSqliteDriver(load: Loader): SqliteDriver {
  const { DatabaseSync } = load() as { DatabaseSync: new (path: string) => SqliteDatabase }
  new DatabaseSync(':memory:').close()
  return { name: 'node:sqlite', open: (path) => new DatabaseSync(path) }
}

/** Load a SQLite driver; never throws. */
export function loadSqlite(options: LoadSqliteOptions = {}): SqliteLoad {
  const prefer = options.prefer ?? 'auto'
  const loadBetter = options.loadBetterSqlite ?? (() => require('better-sqlite3'))
  // process.getBuiltinModule avoids a static import, which would print node:sqlite's
  // ExperimentalWarning even when better-sqlite3 works.
  const loadNode = options.loadNodeSqlite ?? (() => process.getBuiltinModule('node:sqlite'))
  const fix = options.fix ?? rebuildCommand(nodeDirOf(process.execPath), profileOf(import.meta.filename ?? ''))
  let problem: SqliteProblem | undefined
  if (prefer !== 'node:sqlite') {
    try {
      return { ok: true, driver: betterSqliteDriver(loadBetter) }
    } catch (error) {
      problem = classifySqliteError(error, fix)
      if (prefer === 'better-sqlite3') return { ok: false, problem }
    }
  }
  try {
    const driver = nodeSqliteDriver(loadNode)
    return problem ? { ok: true, driver, problem } : { ok: true, driver }
  } catch (error) {
    const detail = errorText(error)
    return {
      ok: false,
      problem: problem ?? { kind: 'load-failed', detail, fix, message: `node:sqlite is unavailable (${detail})` },
    }
  }
}
