// The in-process DSH host for the `dsh` tier: the real core services (LlmRuntime, SessionStore,
// SystemPrompt, ToolRuntime, AgentRegistry, AgentLoop, and JSONL session persistence in a temp
// dir) in a fresh Cordis Context, with the scripted model registered as provider `mock`.
// Only the model is fake. Every host gets its own temp DSH_HOME-like folder.
import { defineTool } from '@deepseek-ai/dsh-tools'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import LlmRuntime, { createUserMessage } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SessionPersistenceJsonl from '@deepseek-ai/dsh-session-persistence-jsonl'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import SubprocessLocal from '@deepseek-ai/dsh-subprocess-local'
import SandboxLocal from '@deepseek-ai/dsh-sandbox-local'
import SandboxPolicy from '@deepseek-ai/dsh-sandbox-policy'
import BashSandbox from '@deepseek-ai/dsh-bash-sandbox'
import UserApproval from '@deepseek-ai/dsh-user-approval'
import PermissionPresets from '@deepseek-ai/dsh-permission-presets'
import { afterEach } from 'vitest'
import * as botTeam from '../../src/index.ts'
import { ScriptedAdapter } from '../../scripts/scripted-model/adapter.ts'
import { mountDshDefaultModel, mountShellTool } from './shell.ts'
import type { Script, ScriptMap } from '../../scripts/scripted-model/format.ts'
import type { Clock } from '../../src/core/clock.ts'

export interface DshHost {
  ctx: Context
  adapter: ScriptedAdapter
  /** Temp folder standing in for DSH_HOME (sessions/ lives here). */
  home: string
  /** Working folder recorded as the Sessions' cwd. */
  cwd: string
  dispose(): Promise<void>
}

/** Mount DSH's core services (the agent loop and what it needs) into `ctx`. */
export async function mountDshCore(ctx: Context, persona = 'You are a test agent.'): Promise<Context> {
  await ctx.plugin(LlmRuntime)
  await ctx.plugin(SessionStore)
  await ctx.plugin(SystemPrompt, { persona })
  await ctx.plugin(ToolRuntime)
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(AgentLoop, { agents: [] })
  return ctx
}

/** DSH's permission presets as the base bundle configures them (read-only is defined there). */
export const BASE_PRESETS = {
  'read-only': { sandbox: 'read-only', approval: 'ask' },
  'workspace-write': { sandbox: 'workspace-write', approval: 'ask' },
  'danger-full-access': { sandbox: 'danger-full-access', approval: 'never' },
} as const

/**
 * A fresh host; pass `home` to start a second host (a restart) on the same folder, and
 * `permissions` to mount DSH's shell sandbox, approval service and permission presets too.
 */
export async function startDshHost(script: Script | ScriptMap = {}, options: { home?: string; permissions?: boolean } = {}): Promise<DshHost> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'bot-team-dsh-'))
  const cwd = join(home, 'work')
  mkdirSync(cwd, { recursive: true })
  const ctx = await mountDshCore(new Context())
  await ctx.plugin(SessionPersistenceJsonl, { root: join(home, 'sessions'), compression: 'none' })
  if (options.permissions) {
    await ctx.plugin(SubprocessLocal)
    await ctx.plugin(SandboxLocal)
    await ctx.plugin(SandboxPolicy, { mode: 'workspace-write', workspaceRoot: cwd })
    await ctx.plugin(BashSandbox, {})
    await ctx.plugin(UserApproval, { policy: 'ask' })
    await ctx.plugin(PermissionPresets, { presets: BASE_PRESETS })
  }
  const adapter = new ScriptedAdapter(script)
  ctx.llm.registerAdapter(['mock'], adapter)
  let disposed: Promise<void> | undefined
  return {
    ctx,
    adapter,
    home,
    cwd,
    dispose() {
      // Idempotent: a test may stop a host early (a restart) and still leave it to `disposedAfterEach`.
      disposed ??= (async () => {
        await ctx.fiber.dispose()
        if (!options.home) rmSync(home, { recursive: true, force: true })
      })()
      return disposed
    },
  }
}

export interface TeamHostOptions {
  home?: string
  permissions?: boolean
  /** Who writes team state; tests default to `always` (an in-process host is not `dsh web`). */
  writer?: 'always' | 'auto' | 'never'
  /** Plugin config merged over the defaults above (e.g. `{ rooms: { limits: { turnTimeoutMs: 300 } } }`). */
  config?: Partial<botTeam.Config>
  /**
   * Mount DSH's real `shellEnv` and `bash` tool too (`shell.ts`; implies `permissions`);
   * `'background'` adds DSH's job registry, so `run_in_background` works and a finished job wakes its Session.
   */
  shell?: boolean | 'background'
  /** The clock the schedules run on (provided as `botClock` before the plugin mounts). */
  clock?: Clock
  /**
   * A host as a real install is: no plugin `defaultModel`; DSH's own agent default model service
   * (`@deepseek-ai/dsh-agent-default-model`, as DSH's base bundle mounts it) names this route.
   */
  dshDefaultModel?: `${string}/${string}`
}

/** A host with the Bot Team plugin mounted on `<home>/bot` (Bots without a model use `mock/mock`). */
export async function startTeamHost(script: Script | ScriptMap = {}, options: TeamHostOptions = {}): Promise<DshHost> {
  const { writer = 'always', config = {}, shell = false, clock, dshDefaultModel, ...hostOptions } = options
  const host = await startDshHost(script, { ...hostOptions, permissions: hostOptions.permissions || shell !== false })
  if (shell) await mountShellTool(host.ctx, host.home, { background: shell === 'background' })
  if (clock) {
    host.ctx.provide('botClock')
    host.ctx.set('botClock', clock)
  }
  if (dshDefaultModel) await mountDshDefaultModel(host.ctx, dshDefaultModel)
  const defaults = dshDefaultModel ? {} : { defaultModel: 'mock/mock' }
  await host.ctx.plugin(botTeam, { dir: join(host.home, 'bot'), writer, ...defaults, ...config } as botTeam.Config)
  return host
}

/**
 * Hosts a test file starts are disposed after each test, the last started first. Call once at the
 * top of the file; wrap every host in the returned function.
 */
export function disposedAfterEach(): <T extends DshHost>(host: T) => T {
  const hosts: DshHost[] = []
  afterEach(async () => {
    for (const host of hosts.splice(0).reverse()) await host.dispose()
  })
  return (host) => {
    hosts.push(host)
    return host
  }
}

/** Send a user prompt to an agent and wait until it is idle again. */
export async function prompt(
  host: DshHost,
  agent: { followup(m: ReturnType<typeof createUserMessage>): void; whenIdle(): Promise<void>; session: any },
  text: string,
) {
  agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
  await agent.whenIdle()
  await host.ctx.sessions.flush(agent.session)
}

/** Create a root agent on the scripted model, send one user prompt, wait for the turn to end. */
export async function runTurn(host: DshHost, text: string, sessionId = `session-${Math.random().toString(36).slice(2)}`) {
  const { agent } = await host.ctx.agents.create({
    sessionId: SessionId(sessionId),
    meta: { cwd: host.cwd },
    agentOptions: { provider: 'mock', model: 'mock' },
  })
  agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
  await agent.whenIdle()
  await host.ctx.sessions.flush(agent.session)
  return agent
}

/**
 * A tool that asks DSH's approval service for itself (as a tool may, from inside `execute`) and
 * answers with the outcome: `outcome=<allowed-once|rejected|cancelled|unavailable>`.
 */
export function registerApprovalTool(host: DshHost, reason = 'write outside the workspace'): void {
  host.ctx.tools.register(
    defineTool({
      name: 'needs_approval',
      description: 'asks for approval',
      parameters: { path: { type: 'string' }, description: { type: 'string' } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      async execute(_args, exec) {
        return `outcome=${await host.ctx.approval.request({ agent: exec.agent!, toolName: 'needs_approval', callId: exec.callId, reason, signal: exec.signal })}`
      },
    }),
  )
}
