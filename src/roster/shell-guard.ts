/**
 * Bot shells through DSH's sandbox: `confine` of the live provider is wrapped (rc.8 has no hook and
 * allows one provider), so a Bot Session's command is refused once its folder resolves elsewhere,
 * and runs inside the Bot's namespace set at its turn's network level (`botNetwork`); the set is
 * made in `tools/pre-execute` (asynchronous) before the sandbox's synchronous `confine` needs it.
 * The same hook refuses what would reach past the level (web tools, escalations to full access).
 */
import { lookup } from 'node:dns/promises'
import { networkInterfaces } from 'node:os'
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { SessionId } from '@deepseek-ai/dsh-session'
import { botOwner, type NetworkLevel } from '../core/network.ts'
import { refusedAddress, refusedList } from '../core/refused-ranges.ts'
import { errorText } from '../core/errors.ts'
import type { ConfinedArgv, Sandbox, SandboxPolicy } from '../dsh/services.ts'
import { warn } from '../dsh/warn.ts'
import type { ProbeResult } from '../network/probe.ts'

/** What the guard asks the roster. */
export interface ShellGuardHost {
  /** The live Bot a Session works for: a Bot Session's, or one of the Sessions it started (sub-agents, tasks). */
  botOf(sessionId: string): { id: string; name: string } | undefined
  /** The network level the Session's current turn runs at (the Bot's own, or stricter along its chain). */
  levelOf(sessionId: string): NetworkLevel
  /** Live Bots whose own level is `internet` or `none` (the probe's failure is told for each). */
  confinedBots(): { id: string; name: string; level: NetworkLevel }[]
  /** Why a Session of the Bot may not work in `cwd` now (`BotRoster.folderProblem`). */
  folderProblem(botId: string, cwd: string, sessionId?: string): string | undefined
  /** Folders the Bot works in (never covered in its set). */
  keepOf(botId: string): string[]
  record(text: string, botId?: string): void
}

/** Tools that reach the network themselves, outside any shell. */
const NETWORK_TOOLS = new Set(['web_fetch', 'web_search'])
/** The tools whose commands run through `confine` unless the mode is danger-full-access. */
const SHELL_TOOLS = /^(bash|pwsh|terminal_open|terminal_send)$/

/** One plain message per Bot whose commands the machine cannot run at its level: what is wrong, and the fix. */
export function networkProblemText(name: string, level: NetworkLevel, probe: ProbeResult): string | undefined {
  if (probe.state !== 'unavailable' || level === 'full') return undefined
  return `${name}'s shell commands are refused: its network is "${level}", and this machine cannot give it a network of its own (${probe.reason}). Fix: ${probe.fix}; or set ${name}'s network to "full" on the team page.`
}

export class ShellGuard {
  private readonly ctx: Context
  private readonly host: ShellGuardHost

  constructor(ctx: Context, host: ShellGuardHost) {
    this.ctx = ctx
    this.host = host
  }

  /** Wrap `confine` whenever a sandbox provider is up; guard every Bot tool call in `tools/pre-execute`. */
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
    })
    // The probe's verdict, said once per Bot it leaves without commands (terminal and diagnostics).
    this.ctx.inject(['botNetwork'], (scope) => {
      // A roster stopped before the probe's verdict (a short-lived host) has nobody left to tell.
      let live = true
      scope.effect(
        () => () => {
          live = false
        },
        'bot-roster:probe-told',
      )
      void scope.botNetwork.whenProbed().then((probe) => {
        if (!live) return
        for (const bot of this.host.confinedBots()) {
          const text = networkProblemText(bot.name, bot.level, probe)
          if (text) warn(this.ctx, text, undefined, 'network')
        }
      })
    })
    this.ctx.on('tools/pre-execute', async (exec, next) => {
      const denial = await this.denial(exec.name, exec.arguments, exec.agent)
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
    const level = this.host.levelOf(sessionId)
    if (level === 'full') return original(argv, policy)
    const network = this.ctx.get('botNetwork')
    const refuse = (why: string) => new Error(`Bot Team refused this command: ${bot.name}'s network is "${level}" and ${why}.`)
    if (!network) throw refuse('the network service is not running here')
    const probe = network.probe()
    if (probe.state === 'unavailable') throw new Error(`Bot Team refused this command: ${networkProblemText(bot.name, level, probe)}`)
    if (!network.isUp(botOwner(bot.id), level)) {
      // Made on the way in (`tools/pre-execute`); a command that came another way starts it now.
      void network.ensure(botOwner(bot.id), level, this.host.keepOf(bot.id)).catch(() => {})
      throw refuse('its network namespaces are being made: run the command again')
    }
    return network.wrap(original(argv, policy), network.prefixFor(botOwner(bot.id), level))
  }

  /**
   * Why a Bot's tool call is refused before it runs (it would reach past the Bot's network level, or
   * its namespaces cannot be made); for shell tools the namespace set is made here.
   */
  private async denial(name: string, args: unknown, agent: Agent | undefined): Promise<string | undefined> {
    const bot = agent ? this.host.botOf(String(agent.id)) : undefined
    if (!bot || !agent) return undefined
    const level = this.host.levelOf(String(agent.id))
    if (level === 'full') return undefined
    const refuse = (why: string) => {
      this.host.record(`refused ${name} for ${bot.name}: ${why}`, bot.id)
      return `Refused: ${bot.name}'s network is "${level}" (the person's setting), so ${why}.`
    }
    if (NETWORK_TOOLS.has(name) && level === 'none') return refuse(`${name} is not available to it`)
    if (name === 'web_fetch') {
      const why = await this.fetchRefusal(args)
      if (why) return refuse(why)
    }
    const wanted = args !== null && typeof args === 'object' ? (args as { sandbox_permissions?: unknown }).sandbox_permissions : undefined
    if (wanted === 'danger-full-access') return refuse('its commands cannot leave the sandbox (danger-full-access runs them unconfined, on the whole network)')
    if (!SHELL_TOOLS.test(name)) return undefined
    if (this.ctx.get('sandboxPolicy')?.resolve({ session: agent.session }).mode === 'danger-full-access')
      return refuse('its commands cannot run at danger-full-access (unconfined, on the whole network)')
    const network = this.ctx.get('botNetwork')
    if (!network) return refuse('the network service is not running here')
    if (network.isUp(botOwner(bot.id), level)) return undefined
    try {
      await network.ensure(botOwner(bot.id), level, this.host.keepOf(bot.id))
    } catch (error) {
      const probe = network.probe()
      return `Refused: ${networkProblemText(bot.name, level, probe) ?? `${bot.name}'s shell commands cannot run now: ${errorText(error)}`}`
    }
    return undefined
  }

  /**
   * Why a `web_fetch` of a Bot at `internet` is refused: its host is, or resolves to, this machine,
   * loopback, link-local, a private or CGNAT range, or ULA (checked again at DSH's own lookup only
   * by the name: see the limitations).
   */
  private async fetchRefusal(args: unknown): Promise<string | undefined> {
    const raw = args !== null && typeof args === 'object' ? (args as { url?: unknown }).url : undefined
    if (typeof raw !== 'string') return undefined
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return undefined
    }
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const own = Object.values(networkInterfaces())
      .flat()
      .flatMap((i) => (i ? [i.address] : []))
    const list = refusedList(own)
    if (refusedAddress(host, list)) return `web_fetch may not reach ${host} (this machine, its loopback, or a local or private address)`
    if (/^localhost$|\.localhost$/i.test(host)) return `web_fetch may not reach ${host} (this machine)`
    let addresses: { address: string }[]
    try {
      addresses = await lookup(host, { all: true, verbatim: true })
    } catch {
      return undefined // DSH's own fetch says the name does not resolve
    }
    const hit = addresses.find((a) => refusedAddress(a.address, list))
    return hit ? `web_fetch may not reach ${host}: it resolves to ${hit.address} (this machine, or a local or private address)` : undefined
  }
}
