/**
 * Bot shells through DSH's sandbox: `confine` of the live provider is wrapped (rc.8 has no hook and
 * allows one provider), so a Bot Session's command is refused once its folder resolves elsewhere, and
 * a no-network Bot's runs under `unshare --net` without `DSH_WEB_URL`, after a start-up probe (until
 * it passes, such commands are refused); `tools/pre-execute` denies what would leave the namespace.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { SessionId } from '@deepseek-ai/dsh-session'
import type { ConfinedArgv, Sandbox, SandboxPolicy } from '../dsh/services.ts'
import { warn } from '../dsh/warn.ts'

/** What the guard asks the roster. */
export interface ShellGuardHost {
  /** Whether some live Bot works without network (a failed probe is then worth a warning). */
  anyNoNetwork(): boolean
  /** The live Bot a Session works for: a Bot Session's, or one of the Sessions it started (sub-agents). */
  botOf(sessionId: string): { id: string; name: string; noNetwork?: boolean | undefined } | undefined
  /** Why a Session of the Bot may not work in `cwd` now (`BotRoster.folderProblem`). */
  folderProblem(botId: string, cwd: string, sessionId?: string): string | undefined
  record(text: string, botId?: string): void
}

/** Whether this machine can take a Bot off the network, as the start-up probe found. */
export type NetworkSwitch = { state: 'checking' } | { state: 'ready'; unshare: string } | { state: 'unavailable'; reason: string }

/** Tools that reach the network themselves, outside any shell. */
const NETWORK_TOOLS = new Set(['web_fetch', 'web_search'])
/** The tools whose commands run through `confine` unless the mode is danger-full-access. */
const SHELL_TOOLS = /^(bash|terminal_open|terminal_send)$/

const UNSHARE = ['/usr/bin/unshare', '/bin/unshare']
const ENV = ['/usr/bin/env', '/bin/env']

/** The argv put before the runner's for a no-network Bot (absolute paths: no `PATH` lookup). */
export function noNetworkPrefix(unshare: string, env: string): string[] {
  return [unshare, '--net', '--map-current-user', env, '-u', 'DSH_WEB_URL']
}

export class ShellGuard {
  private readonly ctx: Context
  private readonly host: ShellGuardHost
  private network: NetworkSwitch = { state: 'checking' }
  private prefix: string[] = []

  constructor(ctx: Context, host: ShellGuardHost) {
    this.ctx = ctx
    this.host = host
  }

  get networkSwitch(): NetworkSwitch {
    return this.network
  }

  /** Wrap `confine` whenever a sandbox provider is up; deny network tools and escalations for no-network Bots. */
  start(): void {
    this.ctx.inject(['sandbox'], (scope) => {
      const provider = scope.sandbox as Sandbox
      const original = provider.confine.bind(provider)
      const wrapped = (argv: readonly string[], policy: SandboxPolicy): ConfinedArgv => this.confine(original, argv, policy)
      provider.confine = wrapped
      scope.effect(
        () => () => {
          if (provider.confine === wrapped) delete (provider as { confine?: unknown }).confine
        },
        'bot-roster:sandbox-confine',
      )
      void this.probe(original).then(() => {
        if (this.network.state === 'unavailable' && this.host.anyNoNetwork())
          warn(this.ctx, `Bots without network cannot run shell commands here: ${this.network.reason}`, undefined, 'network')
      })
    })
    this.ctx.on('tools/pre-execute', async (exec, next) => {
      const denial = this.denial(exec.name, exec.arguments, exec.agent)
      return denial ? { kind: 'deny', reason: denial } : next()
    })
  }

  private confine(original: (argv: readonly string[], policy: SandboxPolicy) => ConfinedArgv, argv: readonly string[], policy: SandboxPolicy): ConfinedArgv {
    const sessionId = policy.sessionId === undefined ? undefined : String(policy.sessionId)
    const bot = sessionId === undefined ? undefined : this.host.botOf(sessionId)
    if (!bot || sessionId === undefined) return original(argv, policy)
    const cwd = this.ctx.agents.get(SessionId(sessionId))?.session.header.cwd
    const problem = cwd === undefined ? undefined : this.host.folderProblem(bot.id, cwd, sessionId)
    if (problem) throw new Error(`Bot Team refused this command: ${problem}. The person must set the working folder again.`)
    if (!bot.noNetwork) return original(argv, policy)
    if (this.network.state !== 'ready')
      throw new Error(
        `Bot Team refused this command: ${bot.name} runs without network, and this machine cannot take a command off the network (${this.network.state === 'checking' ? 'still checking' : this.network.reason}).`,
      )
    const confined = original(argv, policy)
    return {
      ...confined,
      argv: [...this.prefix, ...confined.argv],
      runnerFailureRules: [...confined.runnerFailureRules, { fatalSignatures: ['unshare: '] }],
    }
  }

  /** Why a tool call of a no-network Bot is refused (it would reach the network outside the namespace). */
  private denial(name: string, args: unknown, agent: Agent | undefined): string | undefined {
    const bot = agent ? this.host.botOf(String(agent.id)) : undefined
    if (!bot?.noNetwork || !agent) return undefined
    const refuse = (why: string) => {
      this.host.record(`refused ${name} for ${bot.name}: ${why}`, bot.id)
      return `Refused: ${bot.name} works without network (the person's setting), so ${why}.`
    }
    if (NETWORK_TOOLS.has(name)) return refuse(`${name} is not available to it`)
    const wanted = args !== null && typeof args === 'object' ? (args as { sandbox_permissions?: unknown }).sandbox_permissions : undefined
    if (wanted === 'danger-full-access') return refuse('its commands cannot leave the sandbox (danger-full-access runs them with the network)')
    if (SHELL_TOOLS.test(name) && this.ctx.get('sandboxPolicy')?.resolve({ session: agent.session }).mode === 'danger-full-access')
      return refuse('its commands cannot run at danger-full-access (unconfined, with the network)')
    return undefined
  }

  /**
   * Run a confined `cat /proc/self/net/dev` under the prefix: it must exit 0 and list only the
   * loopback device, which proves the namespace holds and the runner works inside it.
   */
  private async probe(original: (argv: readonly string[], policy: SandboxPolicy) => ConfinedArgv): Promise<void> {
    const unshare = UNSHARE.find((p) => existsSync(p))
    const env = ENV.find((p) => existsSync(p))
    if (!unshare || !env) {
      this.network = { state: 'unavailable', reason: `no ${unshare ? 'env' : 'unshare'} program in ${(unshare ? ENV : UNSHARE).join(' or ')}` }
      return
    }
    const prefix = noNetworkPrefix(unshare, env)
    let argv: string[]
    try {
      argv = [...prefix, ...original(['cat', '/proc/self/net/dev'], { mode: 'read-only', workspaceRoot: tmpdir() }).argv]
    } catch (error) {
      this.network = { state: 'unavailable', reason: `the sandbox cannot confine a command here (${(error as Error).message})` }
      return
    }
    const result = await new Promise<{ ok: boolean; out: string }>((resolve) => {
      execFile(argv[0]!, argv.slice(1), { timeout: 10_000 }, (error, stdout, stderr) =>
        resolve({ ok: !error, out: error ? `${String(stderr).trim() || error.message}` : String(stdout) }),
      )
    })
    const devices = result.out
      .split('\n')
      .slice(2)
      .map((l) => l.split(':')[0]!.trim())
      .filter(Boolean)
    if (!result.ok) this.network = { state: 'unavailable', reason: `${unshare} --net failed: ${result.out.slice(0, 300)}` }
    else if (devices.join(',') !== 'lo') this.network = { state: 'unavailable', reason: `the namespace still has network devices (${devices.join(', ')})` }
    else {
      this.prefix = prefix
      this.network = { state: 'ready', unshare }
    }
  }
}
