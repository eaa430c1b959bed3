/**
 * The one seam to DSH's services: every DSH service the plugin uses, declared once on Cordis's
 * `Context` (declaration merging). Services whose package this plugin has get that package's own
 * declaration; the rest get the narrow shape used here. `ctx.get(name)` is then typed everywhere,
 * with no structural casts. Moving to a newer DSH changes this folder (docs/compatibility.md).
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type {} from '@deepseek-ai/dsh-host-webserver'
import type {} from '@deepseek-ai/dsh-permission-presets'
import type {} from '@deepseek-ai/dsh-user-approval'
import type { ApiProxy, WorkspaceRegistry } from './web.ts'
import type { LogEvent } from '../core/log-lines.ts'

/** A Session's header as DSH's persistence lists it. */
export interface SessionHeader {
  id: string
  cwd?: string
  parentSession?: string
}

/** DSH's Session persistence (dsh-session-persistence): the logs on disk. */
export interface SessionPersistence {
  list(): Promise<readonly SessionHeader[]>
  inspect(id: string): Promise<{ meta: SessionMeta; events: readonly LogEvent[] }>
  readFrom?(id: string, fromSeq: number): Promise<{ events: readonly LogEvent[] }>
  create(meta: SessionMeta): Promise<void>
  append(id: string, events: readonly unknown[]): Promise<void>
}

/** A Session's metadata record (its header line): id, cwd, parent and DSH's other fields. */
export interface SessionMeta extends SessionHeader {
  [field: string]: unknown
}

/** DSH's token meter (dsh-token-meter): what a Session's next request would cost. */
export interface TokenMeter {
  measure(session: unknown): { totalTokens: number }
}

/** Cordis's loader: resolves once every plugin of the boot is applied. */
export interface Loader {
  await(): Promise<unknown>
}

/** DSH's agent presets (dsh-agent-presets): the folders they load from, and what they compose. */
export interface AgentPresets {
  readonly roots: readonly { path: string; trust: 'system' | 'user' }[]
  resolve(id?: string): Promise<{ id: string; path: string; broken?: string }>
  read(id: string): Promise<string>
  composedPreset(agentCtx: unknown): string | undefined
}

/** DSH's agent default model (dsh-agent-default-model): the route of a Session without a selection of its own. */
export interface AgentDefaultModel {
  currentSelection(): { provider: string; model: string }
}

/** DSH's background job registry (dsh-jobs): what a caller's jobs are doing (`list` is per owner), and ending one. */
export interface JobRegistry {
  list(caller?: Agent): readonly { id: string; status: string; label: string }[]
  kill(id: string, caller?: Agent, reason?: string): 'requested' | 'already-finished'
}

/** One spawn request of DSH's subprocess service (dsh-subprocess): the argv, its folder and extra variables. */
export interface SubprocessSpec {
  argv: readonly string[]
  cwd?: string
  env?: Record<string, string>
  [other: string]: unknown
}

/** DSH's subprocess service (dsh-subprocess-local): every command DSH runs, piped or on a terminal. */
export interface Subprocess {
  spawn(spec: SubprocessSpec): unknown
  spawnTerminal?(spec: SubprocessSpec): Promise<unknown>
}

/** DSH's persistent terminals (dsh-terminal): an owner's open terminals, and ending one. */
export interface TerminalSessions {
  list(owner: Agent): readonly { id: string }[]
  kill(owner: Agent, id: string, reason?: string): Promise<boolean>
}

/** DSH's shell environment registry (dsh-shell-env): `DSH_*` variables for shell commands. */
export interface ShellEnv {
  register(contribution: {
    name: string
    variables: Record<string, { description: string }>
    resolve(execution: { agent?: Agent; arguments?: unknown }): Record<string, string>
  }): () => void
}

/** DSH's sandbox provider (`ctx.sandbox`, declared by its own package): `confine` wraps one argv. */
export type Sandbox = Context['sandbox']
/** The per-call file-effect policy `confine` receives (mode, workspace root, calling Session). */
export type SandboxPolicy = Parameters<Sandbox['confine']>[1]
/** What `confine` returns: the argv to spawn and how its failures read. */
export type ConfinedArgv = ReturnType<Sandbox['confine']>

declare module '@deepseek-ai/cordis' {
  interface Context {
    apiProxy: ApiProxy
    workspaceRegistry: WorkspaceRegistry
    sessionPersistence: SessionPersistence
    tokenMeter: TokenMeter
    loader: Loader
    agentPresets: AgentPresets
    shellEnv: ShellEnv
    agentDefaultModel: AgentDefaultModel
    jobs: JobRegistry
    terminals: TerminalSessions
    subprocess: Subprocess
  }
}
